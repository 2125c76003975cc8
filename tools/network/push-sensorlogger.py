#!/usr/bin/env python3
"""Pushes a Sensor Logger export folder to an HTTP receiver in real time, as the app's HTTP push does,
with the faults of a real network in between.

    tools/network/push-sensorlogger.py --url http://127.0.0.1:8000/push --folder EXPORT [--loop]

Every --batch seconds (default 0.25) it sends one message {messageId, sessionId, deviceId, payload}
with the readings sampled since the last one: names are the CSV file names lowercased
(AccelerometerUncalibrated.csv -> "accelerometeruncalibrated"), times are UTC epoch ns rendered through
a double as the app does, shifted so that the recording plays *now*, payloads shuffled. With --loop the
recording starts over at its end with times running on (as a phone that keeps recording), one sample
interval of its fastest stream after its last reading.

Faults (turn off with --clean): a message held back and sent after the next one (--swap, default 0.15),
a message sent twice (--duplicate, default 0.05), a malformed body every --malformed-every messages
(default 40, expects 400), an oversized body (1.1 MiB) every --oversized-every messages (default 60,
expects 413). A receiver that is not listening (a client process restarting) is not an error: the
message is lost, as it would be for the app, and the sender tries again at the next batch.

At the end (--duration, or SIGINT/SIGTERM) it prints one line of counts per reply status.
Standard library only; reads the export at run time (never vendor recordings into the repository).
"""

import argparse
import csv
import http.client
import json
import os
import random
import signal
import sys
import time
import urllib.parse
import uuid

SKIP_FILES = {"metadata.csv", "annotation.csv"}


def parse_value(text):
    """A CSV field as the app pushes it: a number when it is one, else the string."""
    try:
        v = float(text)
        if v != v or v in (float("inf"), float("-inf")):
            return text
        return v
    except ValueError:
        return text


def load(folder, skip):
    """All readings of the export as (time_ns, name, values), time-sorted."""
    readings = []
    for entry in sorted(os.listdir(folder)):
        if not entry.lower().endswith(".csv") or entry.lower() in SKIP_FILES:
            continue
        name = entry[:-4].lower().replace(" ", "")
        if name in skip:
            continue
        with open(os.path.join(folder, entry), newline="") as f:
            rows = csv.reader(f)
            header = next(rows, None)
            if not header or "time" not in header:
                continue
            t_index = header.index("time")
            keys = [(k, i) for i, k in enumerate(header) if k not in ("time", "seconds_elapsed")]
            for row in rows:
                if len(row) != len(header):
                    continue
                try:
                    t = int(row[t_index])
                except ValueError:
                    continue
                readings.append((t, name, {k: parse_value(row[i]) for k, i in keys}))
    readings.sort(key=lambda r: r[0])
    return readings


class Sender:
    def __init__(self, url, token, timeout):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "http":
            sys.exit("only http:// URLs")
        self.host = parts.hostname
        self.port = parts.port or 80
        self.path = (parts.path or "/") + (("?" + parts.query) if parts.query else "")
        self.token = token
        self.timeout = timeout
        self.connection = None
        self.counts = {}

    def count(self, key):
        self.counts[key] = self.counts.get(key, 0) + 1

    def post(self, body):
        """POSTs body; returns the status, or None when nobody listens."""
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        for attempt in range(2):
            try:
                if self.connection is None:
                    self.connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
                self.connection.request("POST", self.path, body=body, headers=headers)
                response = self.connection.getresponse()
                response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.connection.close()
                    self.connection = None
                self.count(response.status)
                return response.status
            except (ConnectionError, OSError, http.client.HTTPException):
                # A stale keep-alive connection (the receiver restarted): one fresh try, then give up.
                if self.connection is not None:
                    self.connection.close()
                    self.connection = None
        self.count("unreachable")
        return None


def loop_step(readings):
    """How far after the recording's last reading its first one comes again when looping, ns: the median
    interval of its fastest stream, so every stream runs on at its own rate with no hole at the seam (a
    batch period here left a quarter-second gap in a 50 Hz stream each time round)."""
    times = {}
    for t, name, _ in readings:
        times.setdefault(name, []).append(t)
    steps = []
    for ts in times.values():
        deltas = sorted(b - a for a, b in zip(ts, ts[1:]) if b > a)
        if deltas:
            steps.append(deltas[len(deltas) // 2])
    return min(steps) if steps else 10_000_000


def double_rendered(ns):
    """The digits of the nearest double, as a JavaScript app prints a 19-digit number."""
    return "%d" % float(ns)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="push URL, e.g. http://127.0.0.1:8000/push")
    parser.add_argument("--folder", required=True, help="a Sensor Logger export folder (CSV files)")
    parser.add_argument("--token", help="bearer token (Sensor Logger's auth token)")
    parser.add_argument("--batch", type=float, default=0.25, help="batch period, s (default 0.25)")
    parser.add_argument("--loop", action="store_true", help="start over at the end, times running on")
    parser.add_argument("--duration", type=float, help="stop after this many seconds")
    parser.add_argument("--device-id", default=None, help="deviceId (default: a fixed one per folder)")
    parser.add_argument("--skip", default="", help="comma-separated reading names not to send")
    parser.add_argument("--clean", action="store_true", help="no faults")
    parser.add_argument("--swap", type=float, default=0.15, help="probability that a message is sent after the next")
    parser.add_argument("--duplicate", type=float, default=0.05, help="probability that a message is sent twice")
    parser.add_argument("--malformed-every", type=int, default=40, help="a malformed body every N messages (0: never)")
    parser.add_argument("--oversized-every", type=int, default=60, help="a 1.1 MiB body every N messages (0: never)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()

    readings = load(args.folder, {s.strip().lower() for s in args.skip.split(",") if s.strip()})
    if not readings:
        sys.exit("no readings in %s" % args.folder)
    rng = random.Random(args.seed)
    device_id = args.device_id or str(uuid.uuid5(uuid.NAMESPACE_URL, os.path.abspath(args.folder))).upper()
    session_id = str(uuid.uuid4()).upper()
    first = readings[0][0]
    span = readings[-1][0] - first + loop_step(readings)
    sender = Sender(args.url, args.token, timeout=2.0)
    if args.clean:
        args.swap = args.duplicate = 0
        args.malformed_every = args.oversized_every = 0

    stop = {"now": False}

    def on_signal(*_):
        stop["now"] = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    start_wall = time.time()
    start_mono = time.monotonic()
    shift = int(start_wall * 1e9) - first  # recording ns -> phone epoch ns "now"
    cursor = 0
    loop = 0
    message_id = 0
    held = None
    previous = None
    tick = 0
    while not stop["now"]:
        tick += 1
        due = start_mono + tick * args.batch
        pause = due - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        elapsed_ns = int((time.monotonic() - start_mono) * 1e9)
        if args.duration and elapsed_ns >= args.duration * 1e9:
            break
        # The readings sampled up to now.
        payload = []
        limit = first + elapsed_ns - loop * span
        while True:
            if cursor >= len(readings):
                if not args.loop:
                    break
                cursor = 0
                loop += 1
                limit = first + elapsed_ns - loop * span
                continue
            t, name, values = readings[cursor]
            if t > limit:
                break
            payload.append({"name": name, "time": t + shift + loop * span, "values": values})
            cursor += 1
        if not payload and cursor >= len(readings) and not args.loop:
            break
        rng.shuffle(payload)
        parts = []
        for r in payload:
            parts.append('{"name":%s,"time":%s,"values":%s}' % (
                json.dumps(r["name"]), double_rendered(r["time"]), json.dumps(r["values"], separators=(",", ":"))))
        body = ('{"messageId":%d,"sessionId":"%s","deviceId":"%s","payload":[%s]}' % (
            message_id, session_id, device_id, ",".join(parts))).encode()
        message_id += 1

        outgoing = []
        if held is not None:
            outgoing = [body, held]  # the held one arrives after its successor
            held = None
        elif rng.random() < args.swap:
            held = body
        else:
            outgoing = [body]
        if previous is not None and rng.random() < args.duplicate:
            outgoing.append(previous)
        if args.malformed_every and message_id % args.malformed_every == 0:
            outgoing.insert(0, b'{"messageId": 1, "payload": [{"name": "accelerometer", "time": ')
        if args.oversized_every and message_id % args.oversized_every == 0:
            outgoing.insert(0, b'{"payload": [' + b" " * (1100 * 1024) + b"]}")
        for b in outgoing:
            sender.post(b)
        if outgoing:
            previous = outgoing[-1] if outgoing[-1].startswith(b'{"messageId":') else previous

    summary = ", ".join("%s: %d" % (k, v) for k, v in sorted(sender.counts.items(), key=lambda kv: str(kv[0])))
    if not args.quiet:
        print("push-sensorlogger: %d messages in %.1f s; replies %s" % (message_id, time.monotonic() - start_mono, summary), flush=True)


if __name__ == "__main__":
    main()
