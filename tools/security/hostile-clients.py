#!/usr/bin/env python3
"""Hostile clients against a real `coremotiond` (and the `coremotion` CLI): the attack suite.

    tools/security/hostile-clients.py [--daemon .build/debug/coremotiond] [--cli .build/debug/coremotion]
                                      [--only NAME[,NAME]] [--pause-seconds 300] [--keep-temp] [--verbose]

Runs as root (it forks children that setuid to 61001, 61002, 61003: the uids need not exist). Every daemon,
view and child it starts lives on temporary sockets, ports and files (loopback and Unix sockets only) and is
killed at the end, also on an exception or Ctrl-C. One line per check, `PASS name: figures` or
`FAIL name: figures (expected …)`, then `N passed, M failed`; the exit status is 0 only when all passed.
Standard library only (Python 3.11).

The checks and their bounds:

 1. paused-client             3 clients stream the accelerometer at 100 Hz, one of them (a forked process) is
                              stopped with SIGSTOP, a 4th subscribes and never reads, for --pause-seconds: the 2
                              healthy clients' largest gap between consecutive samples frames (arrival time,
                              measured in a dedicated reader process each) <= 100 ms; `status` answers within
                              2 s every 10 s; the history keeps recording (a pedometer query answers every 10 s
                              and the history files are written during the window); then SIGTERM -> exit 0
                              within 10 s.
 2. request-flood             one client sends `status` as fast as it can for 20 s without reading: the daemon's
                              RSS grows <= 64 MB; another client's `status` answers within 2 s during the flood;
                              after the flooder leaves, RSS grows <= 8 MB over the next 10 s.
 3. receiver-idle-connections 1,100 idle TCP connections to the daemon's Sensor Logger receiver: the daemon's
                              descriptors stay <= baseline + 200; a Unix-socket client gets a welcome within 2 s;
                              the daemon closes every idle connection (~30 s idle timeout; within 75 s in all).
 4. receiver-reference-flood  20 s of pushes full of reference data (orientation, compass, pedometer): RSS
                              grows <= 64 MB.
 5. receiver-device-ids       a second real phone pushes, then 2,000 pushes each with a new deviceId: that real
                              phone still gets 200 at once, and a phone new to the receiver gets 200 within the
                              expiry of silent phones docs/network.md states + 10 s (60 s if none stated).
 6. receiver-spoofed-clock    one push with the real phone's deviceId and a time 10 years ahead: the real phone's
                              accelerometer keeps reaching a local client (no blank > 2 s in the 12 s after).
 7. receiver-cross-site       on a loopback receiver without token: `Content-Type: text/plain`,
                              `Host: evil.example:PORT`, `Origin: http://evil.example`, `Host: 127.evil.example:PORT`
                              are each refused (not 200); a normal JSON push is 200.
 8. per-uid-slots             authorization on: uid 61001 opens 300 connections (hello each); uid 61002 then gets
                              a welcome within 2 s; the log mentions the per-user refusal 1..5 times (not 300);
                              root's `status` counts the refusals.
 9. status-privacy            uid 61001's `status` lists only uid 61001's clients (no other uid, pid or app);
                              root's lists every uid.
10. history-isolation         uid 61001 grants its own app, then queries the pedometer history: refused (the
                              policy does not name 61001 as a history reader).
11. restricted                a uid the policy restricts gets failure(restricted) and the connection closes; 40
                              such connections in a row all get it (none is 'overloaded'); it holds no slot
                              (root's status lists no client of that uid).
12. permissions-quota         uid 61001 grants up to 3,000 distinct app ids: a clear error (quota) arrives; the
                              permissions file stays < 16 MiB; after a restart uid 61002's earlier grant is still
                              there; `coremotion permissions list --json` prints valid JSON.
13. log-injection             a hello whose app hint holds "\\n2026-01-01 critical: forged\\x1b[31m": the log has
                              no line starting with the forged text and no ESC byte.
14. view-dns-rebinding        `coremotion view` on 127.0.0.1: a WebSocket upgrade with `Host: evil.example:PORT`,
                              `Origin: http://evil.example:PORT` is not 101 (a same-origin upgrade is 101); the
                              page has Content-Security-Policy, X-Frame-Options: DENY, X-Content-Type-Options:
                              nosniff.
15. history-file-modes        a daemon (root, umask 022) that creates its history folder: the folder is 0700, every
                              file in it 0600.
16. frame-garbage             random bytes, an oversized length prefix, half a frame, random frames after a
                              hello: each gets a failure frame or a close within 5 s; a healthy client's largest
                              gap stays <= 250 ms and `status` answers within 2 s; the daemon stays up.
"""

import argparse
import errno
import http.client
import json
import math
import os
import random
import re
import resource
import select
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

# ---------------------------------------------------------------------------------------------------------------
# The protocol (docs/protocol.md, Sources/MotionProtocol): u32 LE length (type + payload), u8 type, payload LE.

MAGIC = 0x544F4D43  # the bytes "CMOT"
PROTOCOL_VERSION = 2  # ProtocolVersion.current
HELLO, SUBSCRIBE_SENSOR, QUERY_PEDOMETER, STATUS, PERMISSIONS = 0x01, 0x02, 0x10, 0x14, 0x15
WELCOME, SAMPLES, DROPPED, REPLY, EVENT, FAILURE = 0x81, 0x82, 0x83, 0x84, 0x85, 0xFF
ACCELEROMETER = 1
RECORD_SIZES = {1: 32, 2: 32, 3: 32, 4: 24, 5: 152, 6: 8, 7: 48, 8: 64, 9: 16, 10: 24, 11: 40, 12: 120, 13: 16}
FAILURE_CODES = {1: "unsupportedVersion", 2: "malformedFrame", 3: "frameTooLarge", 4: "helloExpected",
                 5: "shuttingDown", 6: "tooSlow", 7: "restricted", 8: "overloaded"}
REPLY_ERRORS = {1: "notAuthorized", 2: "notAvailable", 3: "invalidParameter", 4: "historyUnavailable",
                5: "failed", 6: "forbidden"}
AUTH_STATES = {0: "notDetermined", 1: "restricted", 2: "denied", 3: "authorized"}
OP_LIST, OP_GRANT, OP_DENY, OP_RESET = 0, 1, 2, 3
MAX_DAEMON_FRAME = 1024 * 1024


def frame(kind, payload=b""):
    return struct.pack("<IB", len(payload) + 1, kind) + payload


def pstr(text, limit=255):
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    data = data[:limit]
    return struct.pack("<H", len(data)) + data


def msg_hello(hint, version=PROTOCOL_VERSION):
    return frame(HELLO, struct.pack("<IHH", MAGIC, version, 0) + pstr(hint))


def msg_subscribe_sensor(stream, sensor=ACCELEROMETER, interval=0.01):
    return frame(SUBSCRIBE_SENSOR, struct.pack("<IBd", stream, sensor, interval))


def msg_status(request):
    return frame(STATUS, struct.pack("<I", request))


def msg_permissions(request, op, uid, app):
    return frame(PERMISSIONS, struct.pack("<IBI", request, op, 0xFFFFFFFF if uid is None else uid) + pstr(app))


def msg_query_pedometer(request, start, end):
    return frame(QUERY_PEDOMETER, struct.pack("<Idd", request, start, end))


class ProtocolViolation(Exception):
    pass


class Reader:
    """Splits the daemon's byte stream into frames (type, payload)."""

    def __init__(self):
        self.buffer = bytearray()

    def feed(self, data):
        self.buffer += data

    def frames(self):
        out = []
        while len(self.buffer) >= 4:
            (length,) = struct.unpack_from("<I", self.buffer, 0)
            if length < 1 or length > MAX_DAEMON_FRAME:
                raise ProtocolViolation("daemon frame length %d" % length)
            if len(self.buffer) < 4 + length:
                break
            out.append((self.buffer[4], bytes(self.buffer[5:4 + length])))
            del self.buffer[:4 + length]
        return out


def read_str(data, offset, wide=False):
    if wide:
        (n,) = struct.unpack_from("<I", data, offset)
        offset += 4
    else:
        (n,) = struct.unpack_from("<H", data, offset)
        offset += 2
    return data[offset:offset + n].decode("utf-8", "replace"), offset + n


def decode(kind, payload):
    """A daemon message as a dict with 'type'."""
    m = {"type": kind}
    try:
        if kind == WELCOME:
            version, auth, flags, frames_, capacity = struct.unpack_from("<HBBBI", payload, 0)
            o = 9
            app, o = read_str(payload, o)
            device, o = read_str(payload, o)
            headphones, o = read_str(payload, o)
            count = payload[o]
            o += 1
            sensors = []
            for _ in range(count):
                sensor, lo, hi = struct.unpack_from("<Bdd", payload, o)
                o += 17
                name, o = read_str(payload, o)
                sensors.append({"sensor": sensor, "min": lo, "max": hi, "name": name})
            m.update(version=version, authorization=AUTH_STATES.get(auth, auth), flags=flags, capacity=capacity,
                     app=app, device=device, sensors=sensors)
        elif kind == SAMPLES:
            stream, rkind, count = struct.unpack_from("<IBH", payload, 0)
            size = RECORD_SIZES.get(rkind, 0)
            times = []
            if size and rkind not in (8, 11):
                for i in range(count):
                    times.append(struct.unpack_from("<d", payload, 7 + i * size)[0])
            m.update(stream=stream, kind=rkind, count=count, times=times)
        elif kind == DROPPED:
            stream, count = struct.unpack_from("<IQ", payload, 0)
            m.update(stream=stream, count=count)
        elif kind == REPLY:
            request, rkind = struct.unpack_from("<IB", payload, 0)
            m.update(request=request, kind=rkind)
            if rkind == 1:
                start, end, steps = struct.unpack_from("<ddQ", payload, 5)
                m.update(reply="pedometer", steps=steps, start=start, end=end)
            elif rkind == 4:
                text, _ = read_str(payload, 5, wide=True)
                m.update(reply="document", document=text)
            elif rkind == 5:
                code, auth = struct.unpack_from("<BB", payload, 5)
                text, _ = read_str(payload, 7)
                m.update(reply="error", code=REPLY_ERRORS.get(code, code), authorization=AUTH_STATES.get(auth, auth),
                         message=text)
            elif rkind == 0:
                m.update(reply="done")
            else:
                m.update(reply="kind %d" % rkind)
        elif kind == EVENT:
            m.update(event=payload[0] if payload else None)
            if payload and payload[0] == 5:
                (stream,) = struct.unpack_from("<I", payload, 1)
                reason, _ = read_str(payload, 5)
                m.update(stream=stream, reason=reason)
        elif kind == FAILURE:
            (code,) = struct.unpack_from("<H", payload, 0)
            text, _ = read_str(payload, 2)
            m.update(code=FAILURE_CODES.get(code, code), message=text)
    except (struct.error, IndexError) as e:
        raise ProtocolViolation("cannot decode a 0x%02x frame of %d bytes: %s" % (kind, len(payload), e))
    return m


class Closed(Exception):
    pass


class Client:
    """One connection to coremotiond's Unix socket."""

    def __init__(self, path, timeout=5.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.reader = Reader()
        self.queue = []
        self.closed = False
        self.request_id = 0

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def fileno(self):
        return self.sock.fileno()

    def send(self, data):
        self.sock.sendall(data)

    def next(self, timeout):
        """The next message, None after `timeout` s; raises Closed at end of stream."""
        deadline = time.monotonic() + timeout
        while not self.queue:
            if self.closed:
                raise Closed("closed by the daemon")
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(262144)
            except socket.timeout:
                return None
            except (ConnectionResetError, BrokenPipeError):
                self.closed = True
                continue
            if not data:
                self.closed = True
                continue
            self.reader.feed(data)
            self.queue.extend(decode(k, p) for k, p in self.reader.frames())
        return self.queue.pop(0)

    def hello(self, hint="hostile-clients", timeout=5.0, version=PROTOCOL_VERSION):
        """Sends a hello; returns the welcome or failure message (None on timeout)."""
        self.send(msg_hello(hint, version))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = self.next(deadline - time.monotonic())
            if m is None:
                return None
            if m["type"] in (WELCOME, FAILURE):
                return m
        return None

    def request(self, build, timeout=5.0):
        """Sends build(request_id); returns (reply-or-failure, seconds) skipping other messages; (None, s) on
        timeout."""
        self.request_id += 1
        rid = self.request_id
        start = time.monotonic()
        self.send(build(rid))
        deadline = start + timeout
        while time.monotonic() < deadline:
            m = self.next(deadline - time.monotonic())
            if m is None:
                break
            if (m["type"] == REPLY and m["request"] == rid) or m["type"] == FAILURE:
                return m, time.monotonic() - start
        return None, time.monotonic() - start

    def status(self, timeout=2.0):
        """(document dict or None, seconds, raw reply)."""
        m, took = self.request(msg_status, timeout)
        if m is not None and m.get("reply") == "document":
            try:
                return json.loads(m["document"]), took, m
            except ValueError:
                return None, took, m
        return None, took, m


def connect_hello(path, hint="hostile-clients", timeout=5.0):
    c = Client(path, timeout)
    w = c.hello(hint, timeout)
    if w is None or w["type"] != WELCOME:
        c.close()
        raise RuntimeError("no welcome from %s: %r" % (path, w))
    return c, w


# ---------------------------------------------------------------------------------------------------------------
# Processes: everything started is registered and killed at the end.

def proc_rss_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def proc_fd_count(pid):
    try:
        return len(os.listdir("/proc/%d/fd" % pid))
    except OSError:
        return None


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def die_with_parent():
    """In a child: SIGKILL when the suite's process dies (even by SIGKILL), so nothing outlives it."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def fmt_mb(kb):
    return "%.1f MB" % (kb / 1024.0)


class Harness:
    def __init__(self, args):
        self.args = args
        self.daemon_path = os.path.abspath(args.daemon)
        self.cli_path = os.path.abspath(args.cli)
        self.base = tempfile.mkdtemp(prefix="hostile-clients-")
        os.chmod(self.base, 0o755)
        self.popens = []
        self.children = []
        self.threads_stop = threading.Event()
        self.counter = 0
        self.lock = threading.Lock()
        try:
            out = subprocess.run([self.daemon_path, "--help"], capture_output=True, text=True, timeout=30)
            self.daemon_help = out.stdout + out.stderr
        except (OSError, subprocess.TimeoutExpired) as e:
            self.daemon_help = ""
            self.log("cannot run %s --help: %s" % (self.daemon_path, e))

    def log(self, text):
        if self.args.verbose:
            sys.stderr.write("  [%s] %s\n" % (time.strftime("%H:%M:%S"), text))
            sys.stderr.flush()

    def folder(self, name):
        with self.lock:
            self.counter += 1
            path = os.path.join(self.base, "%02d-%s" % (self.counter, name))
        os.mkdir(path)
        os.chmod(path, 0o755)
        return path

    def popen(self, argv, log_path, env=None, umask=None):
        logf = open(log_path, "ab")

        def pre():
            die_with_parent()
            if umask is not None:
                os.umask(umask)

        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=logf, stderr=logf, env=env,
                             start_new_session=True, preexec_fn=pre)
        logf.close()
        self.popens.append(p)
        return p

    def kill_popen(self, p, sig=signal.SIGKILL):
        if p.poll() is None:
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                pass
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass

    def cleanup(self):
        """Kills everything this run started (by pid / own process group), waits for it."""
        self.threads_stop.set()
        for child in list(self.children):
            child.kill()
        self.children.clear()
        for p in list(self.popens):
            self.kill_popen(p)
        self.popens.clear()
        self.threads_stop = threading.Event()

    def remove_temp(self):
        if not self.args.keep_temp:
            shutil.rmtree(self.base, ignore_errors=True)
        else:
            sys.stderr.write("kept %s\n" % self.base)


class ChildContext:
    def __init__(self, w, r):
        self.w = w
        self.r = r

    def report(self, obj):
        os.write(self.w, (json.dumps(obj) + "\n").encode())

    def hold(self, timeout=600):
        """Blocks until the parent releases the child (or `timeout`)."""
        select.select([self.r], [], [], timeout)


class Child:
    """A forked child, optionally as another uid/gid, running fn(ctx, *args); reports JSON lines to the parent."""

    def __init__(self, h, fn, *args, uid=None):
        r1, w1 = os.pipe()
        r2, w2 = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                die_with_parent()
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                # Nothing of the parent's stays open here (other children's pipes, clients' sockets): a
                # release (the parent closing the pipe) must reach the one child it is meant for.
                keep = {0, 1, 2, w1, r2}
                for name in os.listdir("/proc/self/fd"):
                    if int(name) not in keep:
                        try:
                            os.close(int(name))
                        except OSError:
                            pass
                ctx = ChildContext(w1, r2)
                try:
                    if uid is not None:
                        os.setgroups([])
                        os.setgid(uid)
                        os.setuid(uid)
                    fn(ctx, *args)
                except BaseException as e:  # noqa: BLE001 - reported to the parent
                    try:
                        ctx.report({"error": "%s: %s" % (type(e).__name__, e)})
                    except OSError:
                        pass
                    code = 1
            finally:
                os._exit(code)
        os.close(w1)
        os.close(r2)
        self.pid = pid
        self.r = r1
        self.w = w2
        self.buffer = b""
        self.done = False
        h.children.append(self)

    def result(self, timeout):
        """The next JSON object the child reports, None on timeout or when it ended without one."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or self.r is None:
                return None
            ready, _, _ = select.select([self.r], [], [], left)
            if not ready:
                return None
            data = os.read(self.r, 65536)
            if not data:
                os.close(self.r)
                self.r = None
                if b"\n" not in self.buffer:
                    return None
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def release(self):
        if self.w is not None:
            os.close(self.w)
            self.w = None

    def signal(self, sig):
        if not self.done:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def wait(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.done = True
                return True
            time.sleep(0.05)
        return False

    def kill(self):
        self.release()
        if not self.done:
            self.signal(signal.SIGCONT)
            self.signal(signal.SIGKILL)
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass
            self.done = True
        if self.r is not None:
            os.close(self.r)
            self.r = None


class Daemon:
    """A coremotiond on a temporary socket, history, permissions and policy, its log in a file."""

    def __init__(self, h, name, device="sim:walking-in-hand", authorization=False, policy=None, history=None,
                 extra=(), folder=None, umask=None):
        self.h = h
        self.folder = folder or h.folder(name)
        self.socket = os.path.join(self.folder, "s.sock")
        self.history = history or os.path.join(self.folder, "h.sqlite")
        self.permissions = os.path.join(self.folder, "perm.json")
        self.policy = os.path.join(self.folder, "policy.json")
        self.log_path = os.path.join(self.folder, "daemon.log")
        if policy is not None or not os.path.exists(self.policy):
            with open(self.policy, "w") as f:
                json.dump(policy or {}, f)
            os.chmod(self.policy, 0o644)
        self.argv = [h.daemon_path, "--socket", self.socket, "--device", device, "--history", self.history,
                     "--permissions", self.permissions, "--policy", self.policy, "--log-level", "info"]
        if "--socket-mode" in h.daemon_help:
            self.argv += ["--socket-mode", "0666"]
        if not authorization:
            self.argv.append("--no-authorization")
        self.argv += list(extra)
        self.umask = umask
        self.process = None

    def start(self):
        if os.path.exists(self.socket):
            os.unlink(self.socket)
        self.h.log("start: " + " ".join(self.argv))
        self.process = self.h.popen(self.argv, self.log_path, umask=self.umask)
        return self

    @property
    def pid(self):
        return self.process.pid

    def wait_ready(self, timeout=40):
        """Waits until the socket answers a hello; makes the socket usable by other uids."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                if "--socket-mode" in self.argv and b"socket-mode" in self.log_bytes():
                    # The option exists but takes another form: fall back to chmod.
                    i = self.argv.index("--socket-mode")
                    del self.argv[i:i + 2]
                    self.start()
                    continue
                raise RuntimeError("coremotiond exited with %s before it listened; log: %s" % (
                    self.process.returncode, self.tail()))
            if os.path.exists(self.socket):
                try:
                    mode = stat.S_IMODE(os.stat(self.socket).st_mode)
                    if mode & 0o006 != 0o006:
                        os.chmod(self.socket, 0o666)
                    c, _ = connect_hello(self.socket, "hostile-clients-ready", timeout=5)
                    c.close()
                    return self
                except (OSError, RuntimeError) as e:
                    last = e
            time.sleep(0.1)
        raise RuntimeError("coremotiond did not answer on %s within %d s (%s); log: %s" % (
            self.socket, timeout, last, self.tail()))

    def stop(self, timeout=10):
        """SIGTERM; (exit code or None, seconds)."""
        if self.process.poll() is not None:
            return self.process.returncode, 0.0
        start = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            took = time.monotonic() - start
            self.h.kill_popen(self.process)
            return None, took
        return code, time.monotonic() - start

    def rss(self):
        return proc_rss_kb(self.pid)

    def fds(self):
        return proc_fd_count(self.pid)

    def alive(self):
        return self.process.poll() is None

    def log_bytes(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read()
        except OSError:
            return b""

    def tail(self, n=6):
        lines = self.log_bytes().decode("utf-8", "replace").strip().splitlines()
        return " | ".join(lines[-n:])

    def status(self, timeout=2.0):
        c = Client(self.socket, timeout)
        try:
            w = c.hello("hostile-clients-status", timeout)
            if w is None or w["type"] != WELCOME:
                return None, None
            doc, took, _ = c.status(timeout)
            return doc, took
        finally:
            c.close()


# ---------------------------------------------------------------------------------------------------------------
# Forked clients.

def gap_reader(ctx, path, hint, warmup, max_seconds):
    """A healthy client in its own process: streams the accelerometer and records each samples frame's arrival
    time, doing nothing else; reports its gaps when released (or after max_seconds)."""
    # The reader must not be the one that is late on a loaded machine: real-time priority when allowed (it
    # blocks in select between frames and does little per frame), else a higher nice priority.
    priority = "normal"
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
        priority = "SCHED_FIFO"
    except (AttributeError, OSError):
        try:
            os.nice(-10)
            priority = "nice -10"
        except OSError:
            pass
    c, w = connect_hello(path, hint)
    c.send(msg_subscribe_sensor(1, ACCELEROMETER, 0.01))
    sock = c.sock
    sock.setblocking(True)
    reader = Reader()
    arrivals = []
    samples = 0
    dropped = 0
    failure = None
    closed = False
    start = time.monotonic()
    ctx.report({"ready": True, "device": w["device"]})
    end = start + max_seconds
    while True:
        now = time.monotonic()
        if now >= end:
            break
        ready, _, _ = select.select([sock, ctx.r], [], [], min(0.5, end - now))
        if ctx.r in ready:
            break
        if sock not in ready:
            continue
        try:
            data = sock.recv(262144)
        except OSError:
            data = b""
        t = time.monotonic()
        if not data:
            closed = True
            break
        reader.feed(data)
        for kind, payload in reader.frames():
            if kind == SAMPLES:
                (count,) = struct.unpack_from("<H", payload, 5)
                samples += count
                arrivals.append(t)
            elif kind == DROPPED:
                dropped += struct.unpack_from("<Q", payload, 4)[0]
            elif kind == FAILURE:
                failure = decode(kind, payload)
    stop = time.monotonic()
    measured = [t for t in arrivals if t >= start + warmup]
    gaps = sorted(b - a for a, b in zip(measured, measured[1:]))
    # A client that stopped receiving: the silence up to the end counts as a gap too.
    tail = stop - measured[-1] if measured else stop - start
    worst = max(gaps[-1] if gaps else 0.0, tail)
    p99 = gaps[min(len(gaps) - 1, int(len(gaps) * 0.99))] if gaps else tail
    where = None
    if measured:
        for a, b in zip(measured, measured[1:]):
            if b - a == worst:
                where = a - start
    ctx.report({"frames": len(arrivals), "samples": samples, "seconds": stop - start, "max_gap": worst,
                "p99_gap": p99, "max_gap_at": where, "dropped": dropped, "closed": closed, "priority": priority,
                "over_50ms": sum(1 for g in gaps if g > 0.050),
                "failure": failure and "%s %s" % (failure["code"], failure["message"])})


def sched_probe(ctx, max_seconds):
    """Context for the gap figures: how late a normal-priority process (as the daemon is) gets the CPU here.
    Sleeps 5 ms in a loop and records the worst oversleep, until released."""
    ctx.report({"ready": True})
    start = time.monotonic()
    worst, at, over_50 = 0.0, None, 0
    while time.monotonic() - start < max_seconds:
        ready, _, _ = select.select([ctx.r], [], [], 0)
        if ready:
            break
        t = time.monotonic()
        time.sleep(0.005)
        late = time.monotonic() - t - 0.005
        if late > 0.050:
            over_50 += 1
        if late > worst:
            worst, at = late, t - start
    ctx.report({"worst": worst, "at": at, "over_50ms": over_50})


def start_sched_probe(h, max_seconds=900):
    child = Child(h, sched_probe, max_seconds)
    child.result(10)
    return child


def finish_sched_probe(child):
    child.release()
    r = child.result(10) or {}
    child.wait(5)
    if "worst" not in r:
        return "machine scheduling delay unknown"
    return "a normal-priority process here was up to %.0f ms late (at %s s; %d times > 50 ms)" % (
        r["worst"] * 1e3, "%.0f" % r["at"] if r["at"] is not None else "-", r["over_50ms"])


def stalled_reader(ctx, path):
    """A client that streams and reads until its parent stops it with SIGSTOP (then it reads nothing)."""
    c, _ = connect_hello(path, "stalled-client")
    c.send(msg_subscribe_sensor(1, ACCELEROMETER, 0.01))
    c.sock.settimeout(0.2)
    ctx.report({"ready": True})
    end = time.monotonic() + 3600
    while time.monotonic() < end:
        try:
            if not c.sock.recv(65536):
                break
        except socket.timeout:
            pass
        except OSError:
            break
        ready, _, _ = select.select([ctx.r], [], [], 0)
        if ready:
            break


def start_gap_reader(h, path, hint, warmup=1.0, max_seconds=900):
    child = Child(h, gap_reader, path, hint, warmup, max_seconds)
    r = child.result(20)
    if not r or not r.get("ready"):
        raise RuntimeError("the healthy client did not start: %r" % (r,))
    return child


def finish_gap_reader(child, timeout=15):
    child.release()
    r = child.result(timeout)
    child.wait(5)
    if not r or "max_gap" not in r:
        raise RuntimeError("the healthy client reported nothing: %r" % (r,))
    return r


# ---------------------------------------------------------------------------------------------------------------
# A Sensor Logger phone: HTTP pushes of raw sensors at 100 Hz (iOS convention: g, rad/s, µT).

def http_request(port, method, path, headers, body, timeout=10.0, host="127.0.0.1"):
    """One raw HTTP/1.1 request with exactly these headers; (status, headers dict lowercased, body)."""
    s = socket.create_connection((host, port), timeout=timeout)
    try:
        lines = ["%s %s HTTP/1.1" % (method, path)]
        for k, v in headers:
            lines.append("%s: %s" % (k, v))
        if body is not None:
            lines.append("Content-Length: %d" % len(body))
        lines.append("Connection: close")
        s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b""))
        data = b""
        deadline = time.monotonic() + timeout
        while b"\r\n\r\n" not in data and time.monotonic() < deadline:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        if not head:
            return None, {}, b""
        first, *hlines = head.decode("latin-1").split("\r\n")
        parts = first.split(" ", 2)
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
        hdrs = {}
        for line in hlines:
            k, _, v = line.partition(":")
            hdrs.setdefault(k.strip().lower(), v.strip())
        return status, hdrs, rest
    finally:
        s.close()


class Phone:
    """Builds Sensor Logger messages for one deviceId."""

    def __init__(self, device_id, rate=100):
        self.device_id = device_id
        self.session = str(uuid.uuid4())
        self.message_id = 0
        self.rate = rate
        self.last_ns = None

    def raw_readings(self, times_ns):
        parts = []
        for t in times_ns:
            s = math.sin(t / 1e9 * 2 * math.pi * 1.8)
            parts.append('{"name":"accelerometeruncalibrated","time":%d,"values":{"x":%.5f,"y":%.5f,"z":%.5f}}' % (
                t, 0.05 * s, -0.02 + 0.1 * s, -1.0 + 0.2 * s))
            parts.append('{"name":"gyroscopeuncalibrated","time":%d,"values":{"x":%.5f,"y":%.5f,"z":%.5f}}' % (
                t, 0.01 * s, -0.02 * s, 0.003))
            parts.append('{"name":"magnetometeruncalibrated","time":%d,"values":{"x":%.3f,"y":%.3f,"z":%.3f}}' % (
                t, 20.0 + s, -5.0, -40.0))
        return parts

    def message(self, parts, device_id=None, session=None):
        self.message_id += 1
        return ('{"messageId":%d,"sessionId":"%s","deviceId":"%s","payload":[%s]}' % (
            self.message_id, session or self.session, device_id or self.device_id, ",".join(parts))).encode()

    def next_batch(self, now_ns=None):
        """A message with the readings since the last one, up to now."""
        now_ns = now_ns or time.time_ns()
        step = int(1e9 / self.rate)
        if self.last_ns is None:
            self.last_ns = now_ns - 10 * step
        times = []
        t = self.last_ns + step
        while t <= now_ns and len(times) < 2000:
            times.append(t)
            t += step
        if times:
            self.last_ns = times[-1]
        return self.message(self.raw_readings(times))


class Pusher:
    """POSTs over one keep-alive connection; status or None when nobody listens."""

    def __init__(self, port, token=None, timeout=10.0):
        self.port = port
        self.token = token
        self.timeout = timeout
        self.connection = None
        self.counts = {}

    def post(self, body, headers=None):
        hdrs = {"Content-Type": "application/json"}
        if self.token:
            hdrs["Authorization"] = "Bearer " + self.token
        hdrs.update(headers or {})
        for _ in range(2):
            try:
                if self.connection is None:
                    self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
                self.connection.request("POST", "/push", body=body, headers=hdrs)
                response = self.connection.getresponse()
                response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.close()
                self.counts[response.status] = self.counts.get(response.status, 0) + 1
                return response.status
            except (OSError, http.client.HTTPException):
                self.close()
        self.counts["unreachable"] = self.counts.get("unreachable", 0) + 1
        return None

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None


class PhoneThread(threading.Thread):
    """The real phone: pushes every 0.1 s until stopped (a bounded number of pushes)."""

    def __init__(self, h, port, phone, token, period=0.1, max_seconds=900):
        super().__init__(daemon=True)
        self.h = h
        self.stop_event = threading.Event()
        self.pusher = Pusher(port, token)
        self.phone = phone
        self.period = period
        self.max_seconds = max_seconds
        self.statuses = []
        self.lock = threading.Lock()

    def run(self):
        end = time.monotonic() + self.max_seconds
        stop_all = self.h.threads_stop
        while not self.stop_event.is_set() and not stop_all.is_set() and time.monotonic() < end:
            with self.lock:
                status = self.pusher.post(self.phone.next_batch())
            self.statuses.append(status)
            self.stop_event.wait(self.period)
        self.pusher.close()

    def stop(self):
        self.stop_event.set()
        self.join(15)


def receiver_daemon(h, name, token="SECRETTOKEN", follow="realphone-0001", extra_options=""):
    port = free_port()
    options = ["platform=ios"]
    if token:
        options.append("token=" + token)
    if follow:
        options.append("device=" + follow)
    if extra_options:
        options.append(extra_options)
    device = "sensorlogger:127.0.0.1:%d?%s" % (port, "&".join(options))
    d = Daemon(h, name, device=device)
    return d, port


def start_receiver_with_phone(h, name, token="SECRETTOKEN", device_id="realphone-0001"):
    """A daemon owning a Sensor Logger receiver, and the real phone pushing to it."""
    d, port = receiver_daemon(h, name, token=token, follow=device_id)
    d.start()
    phone = PhoneThread(h, port, Phone(device_id), token)
    phone.start()
    d.wait_ready(40)
    return d, port, phone


# ---------------------------------------------------------------------------------------------------------------
# The checks. Each returns (ok, figures, expected).

def percentile(values, q):
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(len(v) * q))]


def drain_for_failure(client, timeout, limit=256 * 1024 * 1024):
    """Reads what a client left unread (bounded); 'failure CODE', 'closed' or 'still connected (N MB unread)'."""
    client.sock.setblocking(False)
    reader = Reader()
    total = 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and total < limit:
        ready, _, _ = select.select([client.sock], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        try:
            data = client.sock.recv(1 << 20)
        except (BlockingIOError, InterruptedError):
            continue
        except OSError:
            return "closed (reset) after %.1f MB" % (total / 1e6)
        if not data:
            return "closed after %.1f MB" % (total / 1e6)
        total += len(data)
        reader.feed(data)
        try:
            for kind, payload in reader.frames():
                if kind == FAILURE:
                    m = decode(kind, payload)
                    return "failure %s (%s) after %.1f MB" % (m["code"], m["message"][:60], total / 1e6)
        except ProtocolViolation as e:
            return "garbage: %s" % e
    return "still connected (%.1f MB unread)" % (total / 1e6)


def check_paused_client(h):
    d = Daemon(h, "paused").start().wait_ready()
    healthy = [start_gap_reader(h, d.socket, "healthy-%d" % i) for i in range(2)]
    probe_child = start_sched_probe(h)
    stalled = Child(h, stalled_reader, d.socket)
    if not (stalled.result(20) or {}).get("ready"):
        raise RuntimeError("the stalled client did not start")
    silent = Client(d.socket)
    if (silent.hello("silent-client") or {}).get("type") != WELCOME:
        raise RuntimeError("no welcome for the silent client")
    silent.send(msg_subscribe_sensor(1, ACCELEROMETER, 0.01))
    silent.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    time.sleep(1.0)
    stalled.signal(signal.SIGSTOP)
    history_files = [d.history, d.history + "-wal"]

    def newest_write():
        times = [os.stat(p).st_mtime for p in history_files if os.path.exists(p)]
        return max(times) if times else 0.0

    pause_start = time.time()
    first_write = newest_write()
    end = time.monotonic() + h.args.pause_seconds
    status_times, status_failures, ped_failures, steps = [], [], [], []
    probe = None
    while time.monotonic() < end:
        tick = time.monotonic()
        try:
            if probe is None:
                probe, _ = connect_hello(d.socket, "probe", timeout=2)
            doc, took, raw = probe.status(2.0)
            status_times.append(took)
            if doc is None:
                status_failures.append("t=%.0fs: %s" % (tick - end + h.args.pause_seconds, raw and raw.get("type")))
            now = time.time()
            m, _ = probe.request(lambda r: msg_query_pedometer(r, now - 3600, now), 5.0)
            if m is None or m.get("reply") != "pedometer":
                ped_failures.append(m and (m.get("code"), m.get("message")))
            else:
                steps.append(m["steps"])
        except (OSError, RuntimeError, Closed, ProtocolViolation) as e:
            status_failures.append("t=%.0fs: %s" % (tick - end + h.args.pause_seconds, e))
            status_times.append(float("inf"))
            if probe is not None:
                probe.close()
            probe = None
        if not d.alive():
            status_failures.append("the daemon exited (%s)" % d.process.returncode)
            break
        time.sleep(max(0.0, min(10.0 - (time.monotonic() - tick), end - time.monotonic())))
    last_write = newest_write()
    results = [finish_gap_reader(c) for c in healthy]
    machine = finish_sched_probe(probe_child)
    if probe is not None:
        probe.close()
    silent_fate = drain_for_failure(silent, 3.0)
    silent.close()
    stalled.kill()
    code, took = d.stop(10)
    worst = max(r["max_gap"] for r in results)
    p99 = max(r["p99_gap"] for r in results)
    wrote = last_write > first_write and last_write >= pause_start
    max_status = max(status_times) if status_times else float("inf")
    ok = (worst <= 0.100 and not status_failures and max_status <= 2.0 and not ped_failures and wrote
          and code == 0 and took <= 10)
    fig = ("%d s paused: healthy max gap %.0f ms, p99 %.0f ms (%s samples, dropped %s, closed %s); status %d/%d, "
           "max %.2f s; pedometer answered %d/%d (steps %s->%s); history written during pause %s; SIGTERM -> %s in %.1f s"
           % (h.args.pause_seconds, worst * 1e3, p99 * 1e3, "+".join(str(r["samples"]) for r in results),
              "+".join(str(r["dropped"]) for r in results), "/".join(str(r["closed"]) for r in results),
              len(status_times) - len(status_failures), len(status_times), max_status,
              len(steps), len(steps) + len(ped_failures), steps[0] if steps else "-", steps[-1] if steps else "-",
              "yes" if wrote else "no", code, took))
    fig += "; per healthy client max gap %s (at %s s after its start), gaps > 50 ms %s, reader %s" % (
        "/".join("%.0f ms" % (r["max_gap"] * 1e3) for r in results),
        "/".join("%.0f" % r["max_gap_at"] if r["max_gap_at"] is not None else "-" for r in results),
        "/".join(str(r["over_50ms"]) for r in results), results[0]["priority"])
    fig += "; the client that never reads: %s; %s" % (silent_fate, machine)
    if status_failures:
        fig += "; status failures: " + "; ".join(status_failures[:3])
    if any(r["failure"] for r in results):
        fig += "; healthy failures: " + ", ".join(str(r["failure"]) for r in results)
    return ok, fig, "max gap <= 100 ms, status <= 2 s each time, history written, exit 0 within 10 s"


def check_request_flood(h):
    d = Daemon(h, "flood").start().wait_ready()
    time.sleep(2.0)
    base = d.rss()
    flooder, _ = connect_hello(d.socket, "flooder")
    flooder.sock.setblocking(False)
    chunk = b"".join(msg_status(i) for i in range(1, 2001))
    sent = [0]
    stop = threading.Event()

    def flood():
        view = memoryview(chunk)
        offset = 0
        end = time.monotonic() + 20
        while time.monotonic() < end and not stop.is_set():
            try:
                n = flooder.sock.send(view[offset:])
                sent[0] += n
                offset = (offset + n) % len(chunk)
            except BlockingIOError:
                select.select([], [flooder.sock], [], 0.05)
            except OSError as e:
                cut[0] = "disconnected by the daemon after %.1f s (%s)" % (time.monotonic() - began, type(e).__name__)
                break

    cut = ["kept connected for 20 s"]
    began = time.monotonic()
    t = threading.Thread(target=flood, daemon=True)
    t.start()
    peak = base
    answers = []
    start = time.monotonic()
    next_probe = start + 0.5
    while time.monotonic() - start < 20.5:
        r = d.rss()
        if r:
            peak = max(peak, r)
        if time.monotonic() >= next_probe:
            next_probe += 2
            try:
                doc, took = d.status(2.0)
                answers.append(took if doc is not None and took is not None else float("inf"))
            except (OSError, Closed, ProtocolViolation):
                answers.append(float("inf"))
        time.sleep(0.25)
    stop.set()
    t.join(5)
    flooder.close()
    time.sleep(3)
    after1 = d.rss() or 0
    time.sleep(10)
    after2 = d.rss() or 0
    peak = max(peak, after1, after2)
    growth = peak - base
    settle = after2 - after1
    alive = d.alive()
    ok = growth <= 64 * 1024 and answers and max(answers) <= 2.0 and settle <= 8 * 1024 and alive
    fig = ("flooder wrote %.1f MB of status requests, %s; RSS %s -> peak %s (+%s); other client's status max %.2f s "
           "(%d probes); after the flooder left RSS %s -> %s over 10 s; daemon alive %s" % (
               sent[0] / 1e6, cut[0], fmt_mb(base), fmt_mb(peak), fmt_mb(growth), max(answers) if answers else float("inf"),
               len(answers), fmt_mb(after1), fmt_mb(after2), alive))
    return ok, fig, "RSS growth <= 64 MB, status <= 2 s, no growth (<= 8 MB) after"


def check_receiver_idle_connections(h):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 4096
    if soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (max(want, soft), max(want, hard)))
        except (ValueError, OSError):
            pass
    d, port, phone = start_receiver_with_phone(h, "idle")
    time.sleep(2.0)
    base = d.fds()
    conns = []
    refused = 0
    peak = base
    start = time.monotonic()
    for i in range(1100):
        if time.monotonic() - start > 60:
            break
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(1.0)
        try:
            s.connect(("127.0.0.1", port))
            conns.append(s)
        except OSError:
            s.close()
            refused += 1
        if i % 50 == 0:
            peak = max(peak, d.fds() or 0)
    opened_in = time.monotonic() - start
    peak = max(peak, d.fds() or 0)
    welcome = None
    try:
        t0 = time.monotonic()
        c = Client(d.socket, 2.0)
        w = c.hello("during-idle-flood", 2.0)
        welcome = time.monotonic() - t0 if w and w["type"] == WELCOME else None
        c.close()
    except (OSError, Closed):
        welcome = None
    # Wait for the daemon to close them (EOF or reset); bounded.
    open_ = {s.fileno(): s for s in conns}
    closed_at = []
    poll = select.poll()
    for fd in open_:
        poll.register(fd, select.POLLIN | select.POLLERR | select.POLLHUP)
    deadline = start + opened_in + 75
    while open_ and time.monotonic() < deadline:
        for fd, _ in poll.poll(500):
            s = open_.pop(fd, None)
            if s is None:
                continue
            poll.unregister(fd)
            try:
                s.recv(1)
            except OSError:
                pass
            closed_at.append(time.monotonic() - start - opened_in)
            s.close()
        peak = max(peak, d.fds() or 0)
    lingering = len(open_)
    for s in open_.values():
        s.close()
    phone.stop()
    cap = base + 200
    ok = peak <= cap and welcome is not None and welcome <= 2.0 and lingering == 0 and d.alive()
    fig = ("%d connections open (%d failed) in %.1f s; daemon fds %d -> peak %d (cap %d); Unix welcome %s; "
           "closed by the daemon %d (first %.1f s, last %.1f s after), still open %d after 75 s" % (
               len(conns), refused, opened_in, base, peak, cap, "%.2f s" % welcome if welcome is not None else "none",
               len(closed_at), min(closed_at) if closed_at else float("nan"), max(closed_at) if closed_at else float("nan"),
               lingering))
    return ok, fig, "fds <= baseline + 200, welcome <= 2 s, all idle connections closed (~30 s idle timeout)"


def reference_message(phone, start_ns, count):
    parts = []
    for i in range(count):
        t = start_ns + i * 1_000_000
        a = i * 0.001
        parts.append('{"name":"orientation","time":%d,"values":{"qx":%.6f,"qy":%.6f,"qz":%.6f,"qw":%.6f,'
                     '"roll":%.6f,"pitch":%.6f,"yaw":%.6f}}' % (t, 0.1, 0.2, math.sin(a) * 0.3, 0.9, 0.1, 0.2, a))
        parts.append('{"name":"compass","time":%d,"values":{"magneticBearing":%.4f}}' % (t, (a * 57.0) % 360))
        if i % 4 == 0:
            parts.append('{"name":"pedometer","time":%d,"values":{"steps":%d}}' % (t, i))
    parts += phone.raw_readings([start_ns + j * 10_000_000 for j in range(5)])
    return phone.message(parts)


def check_receiver_reference_flood(h):
    d, port, phone = start_receiver_with_phone(h, "refflood")
    phone.stop()
    time.sleep(2.0)
    base = d.rss()
    statuses = {}
    stop = threading.Event()
    counter = [0]
    clock = [time.time_ns()]
    lock = threading.Lock()

    def flood():
        p = Pusher(port, "SECRETTOKEN")
        msg_phone = Phone("realphone-0001")
        end = time.monotonic() + 20
        while time.monotonic() < end and not stop.is_set():
            with lock:
                start_ns = clock[0]
                clock[0] += 2000 * 1_000_000
            status = p.post(reference_message(msg_phone, start_ns, 2000))
            with lock:
                counter[0] += 1
                statuses[status] = statuses.get(status, 0) + 1
        p.close()

    threads = [threading.Thread(target=flood, daemon=True) for _ in range(2)]
    for t in threads:
        t.start()
    peak = base
    start = time.monotonic()
    while any(t.is_alive() for t in threads) and time.monotonic() - start < 30:
        peak = max(peak, d.rss() or 0)
        time.sleep(0.25)
    stop.set()
    for t in threads:
        t.join(10)
    time.sleep(2)
    peak = max(peak, d.rss() or 0)
    growth = peak - base
    ok = growth <= 64 * 1024 and d.alive() and statuses.get(200, 0) > 0
    fig = "%d pushes of ~11,000 reference readings (replies %s); RSS %s -> peak %s (+%s)" % (
        counter[0], statuses, fmt_mb(base), fmt_mb(peak), fmt_mb(growth))
    return ok, fig, "RSS growth <= 64 MB (and the pushes accepted)"


def documented_phone_expiry():
    """The phone expiry docs/network.md states, seconds (and the sentence), else (60, None)."""
    try:
        with open(os.path.join(ROOT, "docs", "network.md")) as f:
            text = f.read()
    except OSError:
        return 60.0, None
    units = {"s": 1, "sec": 1, "second": 1, "seconds": 1, "min": 60, "minute": 60, "minutes": 60}
    patterns = [
        r"(?:forget|forgets|forgotten|expire|expires|expiry|evict\w*|dropped|removed)[^.\n|]{0,80}?"
        r"(\d+(?:\.\d+)?)\s*(s|sec|seconds?|min|minutes?)\b",
        r"(\d+(?:\.\d+)?)\s*(s|sec|seconds?|min|minutes?)\b[^.\n|]{0,80}?"
        r"(?:forget|forgets|forgotten|expire|expires|expiry|evict\w*)",
    ]
    for pattern in patterns:
        m = re.search(pattern, text, re.IGNORECASE)
        if m:
            return float(m.group(1)) * units[m.group(2).lower()], m.group(0).strip()
    return 60.0, None


def check_receiver_device_ids(h):
    """The daemon follows realphone-0001 (asked for by id). realphone-0002, another real phone on the same
    receiver, pushes before the flood; then 2,000 pushes with made-up deviceIds; then realphone-0002 must still
    get 200 at once (a flood must not evict a real phone), and a phone new to the receiver (newphone-0003) must
    get 200 within the documented expiry of silent phones + 10 s (a flood must not lock phones out for good)."""
    d, port, phone = start_receiver_with_phone(h, "deviceids")
    second = Phone("realphone-0002")
    pusher = Pusher(port, "SECRETTOKEN")
    before = [pusher.post(second.next_batch()) for _ in range(3)]
    time.sleep(1.0)
    attacker = Pusher(port, "SECRETTOKEN")
    statuses = {}
    start = time.monotonic()
    for i in range(2000):
        if time.monotonic() - start > 120:
            break
        p = Phone("attacker-%05d-%s" % (i, uuid.uuid4().hex[:8]))
        status = attacker.post(p.next_batch())
        statuses[status] = statuses.get(status, 0) + 1
    attacker.close()
    flood_took = time.monotonic() - start
    again = pusher.post(second.next_batch())
    expiry, sentence = documented_phone_expiry()
    limit = expiry + 10
    newcomer = Phone("newphone-0003")
    t0 = time.monotonic()
    got = None
    tries = {}
    while time.monotonic() - t0 <= limit:
        status = pusher.post(newcomer.next_batch())
        tries[status] = tries.get(status, 0) + 1
        if status == 200:
            got = time.monotonic() - t0
            break
        time.sleep(1.0)
    pusher.close()
    followed = phone.statuses[-5:]
    phone.stop()
    ok = before[0] == 200 and again == 200 and got is not None and d.alive()
    fig = ("realphone-0002 before: %s; 2,000 made-up deviceIds in %.1f s -> %s; then realphone-0002 -> %s; "
           "newphone-0003 -> %s (bound %.0f s = %s + 10 s; replies %s); followed phone's last pushes %s" % (
               before, flood_took, statuses, again, "200 after %.1f s" % got if got is not None else "no 200",
               limit, "documented expiry %.0f s (\"%s\")" % (expiry, sentence[:50]) if sentence
               else "no expiry in docs/network.md: 60 s assumed", tries, followed))
    return ok, fig, "the remembered phone 200 at once, a new phone 200 within the documented expiry + 10 s"


def spoof_reader(ctx, path, seconds):
    """A local client of the phone's accelerometer: reports arrival times of samples frames."""
    c, w = connect_hello(path, "spoof-watch")
    c.send(msg_subscribe_sensor(1, ACCELEROMETER, 0.01))
    ctx.report({"ready": True, "sensors": [s["sensor"] for s in w["sensors"]]})
    c.sock.setblocking(True)
    reader = Reader()
    arrivals = []
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        ready, _, _ = select.select([c.sock, ctx.r], [], [], 0.5)
        if ctx.r in ready:
            break
        if c.sock not in ready:
            continue
        data = c.sock.recv(262144)
        t = time.monotonic()
        if not data:
            break
        reader.feed(data)
        for kind, payload in reader.frames():
            if kind == SAMPLES:
                arrivals.append(t - start)
    ctx.report({"arrivals": arrivals, "end": time.monotonic() - start})


def check_receiver_spoofed_clock(h):
    d, port, phone = start_receiver_with_phone(h, "spoof")
    watcher = Child(h, spoof_reader, d.socket, 120)
    ready = watcher.result(20)
    if not ready or not ready.get("ready"):
        raise RuntimeError("the local client did not start: %r" % (ready,))
    t_start = time.monotonic()
    time.sleep(5.0)
    ten_years = 10 * 365 * 86400 * 10 ** 9
    with phone.lock:
        p = phone.phone
        future = time.time_ns() + ten_years
        spoof = p.message(p.raw_readings([future + i * 10_000_000 for i in range(10)]))
        spoof_status = phone.pusher.post(spoof)
    t_spoof = time.monotonic() - t_start
    time.sleep(12.0)
    watcher.release()
    r = watcher.result(15) or {}
    phone.stop()
    arrivals = [a for a in r.get("arrivals", [])]
    before = [a for a in arrivals if a < t_spoof]
    after = [a for a in arrivals if a >= t_spoof]
    end = min(r.get("end", t_spoof + 12), t_spoof + 12)
    points = [t_spoof] + [a for a in after if a <= end] + [end]
    blank = max(b - a for a, b in zip(points, points[1:]))
    ok = len(before) > 10 and blank <= 2.0 and d.alive()
    fig = ("phone pushes %s; spoofed push (time +10 years) -> %s; samples frames before %d, in the 12 s after %d; "
           "longest blank after the spoof %.2f s" % (
               {s: phone.statuses.count(s) for s in set(phone.statuses)}, spoof_status, len(before), len(after), blank))
    return ok, fig, "the real phone's samples keep arriving (no blank > 2 s)"


def check_receiver_cross_site(h):
    d, port = receiver_daemon(h, "crosssite", token=None, follow="realphone-0001")
    d.start()
    phone = Phone("realphone-0001")
    # The daemon waits for the first push: send normal pushes until it listens.
    deadline = time.monotonic() + 30
    first = None
    while time.monotonic() < deadline:
        try:
            first, _, _ = http_request(port, "POST", "/push", [("Host", "127.0.0.1:%d" % port),
                                                                ("Content-Type", "application/json")],
                                       phone.next_batch(), timeout=5)
            break
        except OSError:
            time.sleep(0.1)
    d.wait_ready(40)
    here = "127.0.0.1:%d" % port
    cases = [
        ("text/plain", [("Host", here), ("Content-Type", "text/plain")]),
        ("Host evil.example", [("Host", "evil.example:%d" % port), ("Content-Type", "application/json")]),
        ("Origin evil.example", [("Host", here), ("Content-Type", "application/json"),
                                 ("Origin", "http://evil.example")]),
        ("Host 127.evil.example", [("Host", "127.evil.example:%d" % port), ("Content-Type", "application/json")]),
    ]
    results = {}
    for name, headers in cases:
        status, _, _ = http_request(port, "POST", "/push", headers, phone.next_batch())
        results[name] = status
    normal, _, body = http_request(port, "POST", "/push", [("Host", here), ("Content-Type", "application/json")],
                                   phone.next_batch())
    refused = all(s is not None and s != 200 for s in results.values())
    ok = refused and normal == 200
    fig = "; ".join("%s -> %s" % (k, v) for k, v in results.items()) + "; normal JSON push -> %s%s" % (
        normal, "" if normal == 200 else " (%s)" % body[:80].decode("utf-8", "replace"))
    return ok, fig, "each cross-site form refused (415/403/400, not 200), the normal push 200"


def uid_connections(ctx, path, count, hint):
    """As another uid: opens `count` connections with a hello each, reports outcomes, holds them until released."""
    held = []
    outcomes = {}
    for i in range(count):
        try:
            c = Client(path, 5.0)
            w = c.hello(hint, 5.0)
        except (OSError, Closed) as e:
            key = "error %s" % type(e).__name__
            outcomes[key] = outcomes.get(key, 0) + 1
            continue
        except ProtocolViolation:
            outcomes["garbage"] = outcomes.get("garbage", 0) + 1
            continue
        if w is None:
            key = "closed" if c.closed else "no answer"
        elif w["type"] == WELCOME:
            key = "welcome"
        else:
            key = "failure %s" % w["code"]
        outcomes[key] = outcomes.get(key, 0) + 1
        if w is not None and w["type"] == WELCOME:
            held.append(c)
        else:
            # Keep refused connections too (an attacker would): does the daemon close them?
            held.append(c)
    ctx.report({"outcomes": outcomes, "pid": os.getpid()})
    ctx.hold(600)


def uid_one(ctx, path, hint, actions):
    """As another uid: one connection; runs `actions` (status, grant-self, query-pedometer) and reports each."""
    c = Client(path, 5.0)
    w = c.hello(hint, 5.0)
    out = {"pid": os.getpid(), "welcome": w}
    if w is None or w["type"] != WELCOME:
        try:
            c.sock.settimeout(3.0)
            out["eof"] = c.sock.recv(1) == b""
        except OSError as e:
            out["eof"] = "error %s" % e
        ctx.report(out)
        return
    for action in actions:
        if action == "status":
            doc, took, raw = c.status(5.0)
            out["status"] = doc
            out["status_raw"] = raw if doc is None else None
        elif action == "grant-self":
            m, _ = c.request(lambda r: msg_permissions(r, OP_GRANT, None, w["app"]), 5.0)
            out["grant"] = m
        elif action == "query-pedometer":
            now = time.time()
            m, _ = c.request(lambda r: msg_query_pedometer(r, now - 7 * 86400 + 60, now), 10.0)
            out["pedometer"] = m
    ctx.report(out)
    ctx.hold(600)


def count_per_user_lines(log):
    text = log.decode("utf-8", "replace")
    return sum(1 for line in text.splitlines()
               if re.search(r"per[- ]user|61001 already has|user 61001.*(limit|connections)", line, re.IGNORECASE))


def check_per_uid_slots(h):
    d = Daemon(h, "peruid", authorization=True, policy={}).start().wait_ready()
    hog = Child(h, uid_connections, d.socket, 300, "slot-hog", uid=61001)
    r = hog.result(240)
    if not r or "outcomes" not in r:
        raise RuntimeError("uid 61001's child reported nothing: %r" % (r,))
    outcomes = r["outcomes"]
    t0 = time.monotonic()
    other = Child(h, uid_one, d.socket, "other-user", [], uid=61002)
    o = other.result(10) or {}
    took = time.monotonic() - t0
    w = o.get("welcome")
    welcomed = bool(w) and w.get("type") == WELCOME
    time.sleep(1.0)
    lines = count_per_user_lines(d.log_bytes())
    doc, _ = d.status(5.0)
    refusals = None
    if doc:
        ref = doc.get("refusals")
        refusals = ref.get("perUser") if isinstance(ref, dict) else None
        if refusals is None:
            refusals = doc.get("connectionsRefused")
    refused_seen = 300 - outcomes.get("welcome", 0)
    ok = (welcomed and took <= 2.0 and 1 <= lines <= 5 and refusals is not None and refused_seen > 0
          and refusals >= refused_seen)
    fig = ("uid 61001's 300 connections: %s; uid 61002: %s in %.2f s; log lines about the per-user limit: %d; "
           "root's status counts refusals: %s (seen %d)" % (
               outcomes, "welcome" if welcomed else (w and "%s %s" % (w.get("code"), w.get("message"))) or "nothing",
               took, lines, refusals, refused_seen))
    return ok, fig, "61002 welcomed within 2 s, 1-5 log lines, status counts every refusal"


def check_status_privacy(h):
    d = Daemon(h, "privacy", authorization=True, policy={}).start().wait_ready()
    root_client, _ = connect_hello(d.socket, "root-secret-app")
    other = Child(h, uid_one, d.socket, "other-secret-app", [], uid=61002)
    o = other.result(10) or {}
    viewer = Child(h, uid_one, d.socket, "viewer-app", ["status"], uid=61001)
    v = viewer.result(15) or {}
    doc = v.get("status")
    root_doc, _ = d.status(5.0)
    root_client.close()
    if doc is None:
        return False, "uid 61001's status: no document (%r)" % (v.get("status_raw") or v.get("welcome") or v), \
            "a status document with only uid 61001's clients"
    clients = doc.get("clients", [])
    uids = sorted({c.get("uid") for c in clients})
    foreign = [c for c in clients if c.get("uid") != 61001]
    text = json.dumps(doc)
    leaked_pids = [pid for pid in (o.get("pid"), os.getpid()) if pid and re.search(r'"pid": %d\b' % pid, text)]
    leaked_apps = [a for a in ("root-secret-app", "other-secret-app") if a in text]
    root_uids = sorted({c.get("uid") for c in (root_doc or {}).get("clients", [])})
    ok = not foreign and not leaked_pids and not leaked_apps and uids == [61001] and {0, 61001, 61002} <= set(root_uids)
    fig = ("uid 61001 sees clients of uids %s (%d foreign entries, leaked pids %s, leaked hints %s); root sees uids %s" % (
        uids, len(foreign), leaked_pids, leaked_apps, root_uids))
    return ok, fig, "61001 sees only uid 61001, root sees 0, 61001 and 61002"


def check_history_isolation(h):
    d = Daemon(h, "histiso", authorization=True, policy={}).start().wait_ready()
    time.sleep(2.0)
    user = Child(h, uid_one, d.socket, "history-snoop", ["grant-self", "query-pedometer"], uid=61001)
    u = user.result(20) or {}
    grant = u.get("grant")
    ped = u.get("pedometer")
    app = (u.get("welcome") or {}).get("app")
    granted = grant is not None and grant.get("type") == REPLY and grant.get("reply") != "error"
    refused = ped is not None and (ped.get("reply") == "error" or ped.get("type") == FAILURE)
    ok = granted and refused
    def show(m):
        if m is None:
            return "no answer"
        if m.get("reply") == "error":
            return "error %s (%s)" % (m["code"], m["message"])
        if m.get("reply") == "pedometer":
            return "pedometer totals (%d steps)" % m["steps"]
        return m.get("reply") or ("failure %s" % m.get("code"))
    fig = "uid 61001 app %s: grant -> %s; pedometer history query -> %s" % (app, show(grant), show(ped))
    return ok, fig, "the grant accepted and the history query refused (61001 is not a history reader)"


def restricted_connections(ctx, path, count):
    outcomes = {}
    held = []
    for _ in range(count):
        c = Client(path, 5.0)
        try:
            w = c.hello("restricted-user", 5.0)
        except (OSError, Closed):
            w = None
        if w is None:
            key = "closed without failure" if c.closed else "no answer"
        elif w["type"] == WELCOME:
            key = "welcome (%s)" % w["authorization"]
        else:
            key = "failure %s" % w["code"]
        eof = c.closed
        if not eof:
            try:
                # After a failure the daemon closes at once; after a welcome a short look is enough.
                c.sock.settimeout(3.0 if w is not None and w["type"] == FAILURE else 0.3)
                end = time.monotonic() + 5
                while time.monotonic() < end:
                    data = c.sock.recv(65536)
                    if not data:
                        eof = True
                        break
            except OSError:
                eof = c.closed
        key += " then closed" if eof else " left open"
        outcomes[key] = outcomes.get(key, 0) + 1
        held.append(c)
    ctx.report({"outcomes": outcomes})
    ctx.hold(600)


def check_restricted(h):
    d = Daemon(h, "restricted", authorization=True, policy={"restrictedUsers": ["61003"]}).start().wait_ready()
    child = Child(h, restricted_connections, d.socket, 40, uid=61003)
    r = child.result(300) or {}
    outcomes = r.get("outcomes", {})
    doc, _ = d.status(5.0)
    held = [c for c in (doc or {}).get("clients", []) if c.get("uid") == 61003]
    ok = outcomes == {"failure restricted then closed": 40} and doc is not None and not held
    fig = "40 connections of restricted uid 61003: %s; root's status lists %d of its clients%s" % (
        outcomes or r, len(held), "" if doc else " (no status)")
    return ok, fig, "every one failure(restricted) then closed, no slot held"


def quota_grants(ctx, path, count, seconds):
    """As uid 61001: grants `count` distinct long app ids (pipelined), stops at the first error."""
    c, w = connect_hello(path, "quota-filler")
    pad = "x" * 200
    granted = 0
    first_error = None
    start = time.monotonic()
    window = 32
    next_id = 0
    outstanding = 0
    while (granted < count and first_error is None and time.monotonic() - start < seconds):
        while outstanding < window and next_id < count:
            next_id += 1
            c.send(msg_permissions(next_id, OP_GRANT, None, "com.example.quota%05d.%s" % (next_id, pad)))
            outstanding += 1
        m = c.next(10.0)
        if m is None:
            first_error = {"message": "no reply within 10 s"}
            break
        if m["type"] == FAILURE:
            first_error = {"failure": m["code"], "message": m["message"], "at": granted}
            break
        if m["type"] != REPLY:
            continue
        outstanding -= 1
        if m.get("reply") != "error":
            granted += 1
        else:
            first_error = {"code": m.get("code"), "message": m.get("message"), "at": granted}
    ctx.report({"granted": granted, "error": first_error, "seconds": time.monotonic() - start})


def check_permissions_quota(h):
    folder = h.folder("quota")
    d = Daemon(h, "quota", authorization=True, policy={}, folder=folder).start().wait_ready()
    kept_app = "org.example.Kept"
    # 61002 decides for one of its own apps (its own uid, any app id).
    grant_child = Child(h, lambda ctx, path: ctx.report(_grant_as_self(path, kept_app)), d.socket, uid=61002)
    g = grant_child.result(10) or {}
    filler = Child(h, quota_grants, d.socket, 3000, 150, uid=61001)
    f = filler.result(200) or {}
    first_try = None
    if isinstance(f.get("error"), str):
        # The filler itself raised (Child reports {"error": "Type: message"}; once in CI, 2026-11-30, under the
        # background builds, which hid the message): say what it was, and fill again once.
        first_try = f["error"]
        filler = Child(h, quota_grants, d.socket, 3000, 150, uid=61001)
        f = filler.result(200) or {}
    size = os.path.getsize(d.permissions) if os.path.exists(d.permissions) else 0
    code, _ = d.stop(10)
    d2 = Daemon(h, "quota", authorization=True, folder=folder).start().wait_ready()
    listing = None
    valid_json = False
    kept = False
    if os.path.exists(h.cli_path):
        out = subprocess.run([h.cli_path, "permissions", "list", "--json", "--user", "61002", "--socket", d2.socket],
                             capture_output=True, text=True, timeout=30)
        listing = out.stdout
        try:
            parsed = json.loads(out.stdout)
            valid_json = True
            kept = kept_app in json.dumps(parsed) and "authorized" in json.dumps(parsed)
        except ValueError:
            listing = (out.stdout + out.stderr)[:120]
    else:
        c, _ = connect_hello(d2.socket, "lister")
        m, _ = c.request(lambda r: msg_permissions(r, OP_LIST, 61002, ""), 5.0)
        c.close()
        if m and m.get("reply") == "document":
            try:
                parsed = json.loads(m["document"])
                valid_json = True
                kept = kept_app in m["document"]
            except ValueError:
                pass
    err = f.get("error")
    if isinstance(err, str):  # the filler raised: Child reports {"error": "Type: message"}
        err = {"message": "the filler stopped: " + err}
    clear = bool(err) and bool(re.search(r"quota|limit|too many|full|most|maximum", str(err.get("message", "")), re.I))
    ok = clear and size < 16 * 1024 * 1024 and g.get("reply") == "done" and kept and valid_json
    fig = ("uid 61002 granted %s -> %s; uid 61001 granted %s ids in %.1f s, then %s; permissions file %.2f MB; "
           "after restart 61002's grant kept %s; `permissions list --json` valid JSON %s" % (
               kept_app, g.get("reply") or g, f.get("granted"), f.get("seconds") or 0,
               ("error: %s" % (err.get("message") or err)) if err else "no error", size / 1048576.0, kept, valid_json))
    if not valid_json and listing:
        fig += " (%r)" % listing[:120]
    if first_try:
        fig += "; the first filler stopped with %s and was started again" % first_try
    return ok, fig, "a quota error before 3,000 grants, file < 16 MiB, 61002's decision kept, valid JSON"


def _grant_as_self(path, app):
    c, _ = connect_hello(path, "granter")
    m, _ = c.request(lambda r: msg_permissions(r, OP_GRANT, None, app), 5.0)
    c.close()
    if m is None or m.get("type") != REPLY:
        return {"reply": "no reply: %r" % (m,)}
    return {"reply": "done" if m.get("reply") != "error" else "error: %s" % m.get("message")}


def check_log_injection(h):
    d = Daemon(h, "loginject").start().wait_ready()
    forged = "injector\n2026-01-01 critical: forged\x1b[31m"
    c = Client(d.socket)
    w = c.hello(forged)
    time.sleep(0.5)
    c.close()
    time.sleep(1.0)
    d.stop(10)
    log = d.log_bytes()
    forged_line = any(line.lstrip().startswith(b"2026-01-01 critical: forged") for line in log.split(b"\n"))
    esc = b"\x1b" in log
    mentioned = b"injector" in log
    ok = not forged_line and not esc
    fig = "welcome %s; hint logged %s; forged line %s; ESC bytes in the log %d" % (
        w and w["type"] == WELCOME, "yes" if mentioned else "no", "present" if forged_line else "absent", log.count(b"\x1b"))
    return ok, fig, "no forged line and no ESC byte"


def check_view_dns_rebinding(h):
    folder = h.folder("view")
    port = free_port()
    env = dict(os.environ)
    env["COREMOTION_HISTORY"] = "memory"
    env.pop("COREMOTION_DEVICE", None)
    p = h.popen([h.cli_path, "view", "--device", "sim:walking-in-hand", "--host", "127.0.0.1", "--port", str(port)],
                os.path.join(folder, "view.log"), env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if p.poll() is not None:
            with open(os.path.join(folder, "view.log"), "rb") as f:
                raise RuntimeError("coremotion view exited %s: %s" % (p.returncode, f.read()[-300:]))
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.2)
    here = "127.0.0.1:%d" % port

    def upgrade(host, origin):
        headers = [("Host", host), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
                   ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "13")]
        if origin:
            headers.append(("Origin", origin))
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            s.sendall(("GET /ws HTTP/1.1\r\n" + "".join("%s: %s\r\n" % kv for kv in headers) + "\r\n").encode())
            data = b""
            while b"\r\n" not in data:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
            first = data.split(b"\r\n", 1)[0].decode("latin-1")
            parts = first.split(" ")
            return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
        finally:
            s.close()

    evil = upgrade("evil.example:%d" % port, "http://evil.example:%d" % port)
    same = upgrade(here, "http://" + here)
    status, headers, _ = http_request(port, "GET", "/", [("Host", here)], None)
    csp = headers.get("content-security-policy")
    xfo = headers.get("x-frame-options", "")
    xcto = headers.get("x-content-type-options", "")
    ok = evil is not None and evil != 101 and same == 101 and status == 200 and bool(csp) and xfo.upper() == "DENY" \
        and xcto.lower() == "nosniff"
    fig = ("rebinding upgrade (Host+Origin evil.example) -> %s; same-origin upgrade -> %s; page %s, CSP %s, "
           "X-Frame-Options %s, X-Content-Type-Options %s" % (
               evil, same, status, "present" if csp else "missing", xfo or "missing", xcto or "missing"))
    return ok, fig, "rebinding upgrade refused (not 101), same-origin 101, the three headers"


def check_history_file_modes(h):
    folder = h.folder("modes")
    history_dir = os.path.join(folder, "data", "coremotion")
    history = os.path.join(history_dir, "history.sqlite")
    d = Daemon(h, "modes", history=history, folder=folder, umask=0o022).start().wait_ready()
    c, _ = connect_hello(d.socket, "history-writer")
    c.send(msg_subscribe_sensor(1, ACCELEROMETER, 0.01))
    time.sleep(4.0)

    def modes():
        found = {}
        for name in sorted(os.listdir(history_dir)):
            path = os.path.join(history_dir, name)
            if os.path.isfile(path):
                found[name] = stat.S_IMODE(os.stat(path).st_mode)
        return found

    if not os.path.isdir(history_dir):
        return False, "no history folder %s while running" % history_dir, "a 0700 history folder"
    files = modes()
    c.close()
    code, _ = d.stop(10)
    dir_mode = stat.S_IMODE(os.stat(history_dir).st_mode)
    for name, mode in modes().items():
        files.setdefault(name, mode)
        if mode != 0o600:
            files[name] = mode
    parent_mode = stat.S_IMODE(os.stat(os.path.dirname(history_dir)).st_mode)
    ok = dir_mode == 0o700 and files and all(m == 0o600 for m in files.values())
    fig = "history folder %o (its parent, also created, %o); files (running and after exit) %s" % (
        dir_mode, parent_mode, ", ".join("%s %o" % kv for kv in files.items()) or "none")
    return ok, fig, "folder 0700, files 0600"


def garbage_outcome(path, payload, hello_first, close_after=False, wait=5.0):
    """Sends payload (after a hello when asked); what the daemon did: 'failure CODE', 'closed', 'open'."""
    c = Client(path, wait)
    try:
        if hello_first:
            w = c.hello("garbage")
            if not w or w["type"] != WELCOME:
                return "no welcome"
        try:
            c.send(payload)
        except OSError:
            return "closed (while sending)"
        if close_after:
            return "sent"
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                m = c.next(deadline - time.monotonic())
            except Closed:
                return "closed"
            except ProtocolViolation as e:
                return "garbage back: %s" % e
            if m is None:
                break
            if m["type"] == FAILURE:
                try:
                    c.next(2.0)
                except Closed:
                    return "failure %s, closed" % m["code"]
                return "failure %s, left open" % m["code"]
            if m["type"] == REPLY:
                continue
        return "open"
    finally:
        c.close()


def check_frame_garbage(h):
    d = Daemon(h, "garbage").start().wait_ready()
    healthy = start_gap_reader(h, d.socket, "healthy")
    probe_child = start_sched_probe(h)
    rng = random.Random(1234)
    results = {}
    results["random bytes"] = garbage_outcome(d.socket, bytes(rng.getrandbits(8) for _ in range(4096)), False)
    results["oversized length"] = garbage_outcome(d.socket, struct.pack("<IB", 0x7FFFFFF0, STATUS), True)
    results["client frame 64 KiB + 1"] = garbage_outcome(d.socket, struct.pack("<IB", 64 * 1024 + 1, STATUS), True)
    results["zero length"] = garbage_outcome(d.socket, struct.pack("<I", 0), True)
    results["half a frame, then close"] = garbage_outcome(d.socket, struct.pack("<IB", 100, PERMISSIONS) + b"\0" * 40,
                                                          True, close_after=True)
    results["half a frame, then wait"] = garbage_outcome(d.socket, struct.pack("<IB", 100, PERMISSIONS) + b"\0" * 40,
                                                         True, wait=3.0)
    results["hello of version 1"] = garbage_outcome(d.socket, msg_hello("old", 1), False)
    results["status before hello"] = garbage_outcome(d.socket, msg_status(1), False)
    random_frames = {}
    for _ in range(20):
        body = bytes([rng.choice([0x02, 0x03, 0x08, 0x10, 0x14, 0x15, 0x7F, 0x81, 0xFF])]) + \
            bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 40)))
        key = garbage_outcome(d.socket, struct.pack("<I", len(body)) + body, True, wait=2.0)
        key = key.split(",")[0]
        random_frames[key] = random_frames.get(key, 0) + 1
    doc, took = d.status(2.0)
    if doc is None:
        took = None
    gaps = finish_gap_reader(healthy)
    machine = finish_sched_probe(probe_child)
    answered = [k for k, v in results.items() if not (v.startswith("failure") or v.startswith("closed"))
                and k not in ("half a frame, then close", "half a frame, then wait")]
    ok = (not answered and d.alive() and took is not None and took <= 2.0 and gaps["max_gap"] <= 0.250
          and not gaps["closed"])
    fig = "; ".join("%s: %s" % kv for kv in results.items()) + "; 20 random frames: %s; status %.2f s; " \
        "healthy client max gap %.0f ms (%d samples); daemon alive %s; %s" % (
            random_frames, took if took is not None else float("inf"), gaps["max_gap"] * 1e3, gaps["samples"], d.alive(),
            machine)
    return ok, fig, "each hostile input failed or closed, healthy gap <= 250 ms, status <= 2 s"


CHECKS = [
    ("paused-client", check_paused_client),
    ("request-flood", check_request_flood),
    ("receiver-idle-connections", check_receiver_idle_connections),
    ("receiver-reference-flood", check_receiver_reference_flood),
    ("receiver-device-ids", check_receiver_device_ids),
    ("receiver-spoofed-clock", check_receiver_spoofed_clock),
    ("receiver-cross-site", check_receiver_cross_site),
    ("per-uid-slots", check_per_uid_slots),
    ("status-privacy", check_status_privacy),
    ("history-isolation", check_history_isolation),
    ("restricted", check_restricted),
    ("permissions-quota", check_permissions_quota),
    ("log-injection", check_log_injection),
    ("view-dns-rebinding", check_view_dns_rebinding),
    ("history-file-modes", check_history_file_modes),
    ("frame-garbage", check_frame_garbage),
]


def main():
    parser = argparse.ArgumentParser(description="Hostile clients against a real coremotiond (see the docstring).")
    parser.add_argument("--daemon", default=os.path.join(ROOT, ".build", "debug", "coremotiond"))
    parser.add_argument("--cli", default=os.path.join(ROOT, ".build", "debug", "coremotion"))
    parser.add_argument("--only", default="", help="NAME[,NAME]: run only these checks")
    parser.add_argument("--pause-seconds", type=float, default=300, help="paused-client duration (default 300)")
    parser.add_argument("--keep-temp", action="store_true", help="keep the temporary folder (logs, files)")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    if args.pause_seconds < 1 or args.pause_seconds > 3600:
        parser.error("--pause-seconds must be between 1 and 3600")
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    known = [n for n, _ in CHECKS]
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error("unknown check(s) %s; known: %s" % (", ".join(unknown), ", ".join(known)))
    if os.geteuid() != 0:
        print("note: not root: the checks that setuid to other users will fail", file=sys.stderr)
    for path in (args.daemon,):
        if not os.access(path, os.X_OK):
            parser.error("%s is not an executable (swift build first)" % path)

    def on_term(signum, _frame):
        # Once: the cleanup that follows must not be interrupted by a second signal.
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        raise KeyboardInterrupt("signal %d" % signum)

    signal.signal(signal.SIGINT, on_term)
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)
    h = Harness(args)
    passed = failed = 0
    started = time.monotonic()
    try:
        for name, fn in CHECKS:
            if names and name not in names:
                continue
            t0 = time.monotonic()
            h.log("check %s" % name)
            try:
                ok, fig, expected = fn(h)
            except KeyboardInterrupt:
                raise
            except Exception as e:  # noqa: BLE001 - a check that could not run is a failure
                ok, fig, expected = False, "could not run: %s: %s" % (type(e).__name__, e), "the check to run"
                if args.verbose:
                    traceback.print_exc()
            finally:
                h.cleanup()
            took = time.monotonic() - t0
            if ok:
                passed += 1
                print("PASS %s: %s [%.0f s]" % (name, fig, took), flush=True)
            else:
                failed += 1
                print("FAIL %s: %s (expected %s) [%.0f s]" % (name, fig, expected, took), flush=True)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        failed += 1
    finally:
        h.cleanup()
        h.remove_temp()
    h.log("total %.0f s" % (time.monotonic() - started))
    print("%d passed, %d failed" % (passed, failed), flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
