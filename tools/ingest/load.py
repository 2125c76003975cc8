#!/usr/bin/env python3
"""Many phones pushing to ingest nodes, as Sensor Logger pushes: a load generator and a ledger.

Each simulated phone replays a real Sensor Logger recording (accelerometer, gyroscope and magnetometer at
100 Hz, looped, its times shifted to now) in pushes of --batch seconds, with its own deviceId, sessionId and
increasing messageId, to one of the --nodes; with --move-every K it moves to the next node every K pushes (as
behind a load balancer). A push that gets no 200 (an error status, a refused or reset connection, a timeout)
is sent again, the same push, until it is answered 200 or the run ends; only then is it acknowledged. Every
acknowledged push is written to the --ledger (one JSON object per line: device, session, message, readings,
sensors), so that a check can find each one in the database exactly once.

The recording: --recording FOLDER (a Sensor Logger export: AccelerometerUncalibrated.csv, or Accelerometer.csv
with --accelerometer user, Gyroscope.csv, Magnetometer.csv), default $COREMOTION_DATA/iphone13-walk-sensorlogger, else the repository's excerpt
Tests/Fixtures/recordings/sensorlogger/ios-walk.

Prints a progress line every 5 s and a summary: pushes acknowledged, retries, readings, push latency p50/p99
(from sending to the 200), the pushes behind schedule. Exits 1 when a phone fell behind by more than
--max-behind seconds at the end or a push was never acknowledged.

usage: tools/ingest/load.py --nodes http://127.0.0.1:8001,http://127.0.0.1:8002 --phones 200 --seconds 60
       [--token T] [--batch 1] [--move-every 10] [--accelerometer uncalibrated|user] [--ledger FILE] [--json]
"""
import argparse
import bisect
import csv
import http.client
import json
import os
import random
import sys
import threading
import time
import urllib.parse
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The accelerometer a phone sends: Sensor Logger's uncalibrated one (with gravity, what the phones' engines
# on the nodes need to count steps) or its user acceleration ("accelerometer": gravity removed, stored only).
ACCELEROMETERS = {"uncalibrated": ("accelerometeruncalibrated", "AccelerometerUncalibrated.csv"),
                  "user": ("accelerometer", "Accelerometer.csv")}
SENSORS = [("gyroscope", "Gyroscope.csv"), ("magnetometer", "Magnetometer.csv")]


def load_recording(folder, accelerometer="uncalibrated"):
    """[(offset_ns, sensor, x, y, z)] sorted by time, and the recording's length in ns."""
    rows = []
    start = None
    for sensor, name in [ACCELEROMETERS[accelerometer]] + SENSORS:
        path = os.path.join(folder, name)
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                t = int(r["time"])
                start = t if start is None else min(start, t)
                rows.append((t, sensor, float(r["x"]), float(r["y"]), float(r["z"])))
    rows = [(t - start, s, x, y, z) for t, s, x, y, z in rows]
    rows.sort()
    length = rows[-1][0] + 10_000_000
    return rows, length


class Phone:
    def __init__(self, index, args, rows, length, nodes, ledger, stats):
        self.device = str(uuid.UUID(int=random.getrandbits(128)))
        self.session = str(uuid.UUID(int=random.getrandbits(128)))
        self.index = index
        self.args = args
        self.rows = rows
        self.times = [r[0] for r in rows]
        self.length = length
        self.nodes = nodes
        self.node = index % len(nodes)
        self.ledger = ledger
        self.stats = stats
        self.connection = None
        self.phase = random.randrange(length)  # where in the recording this phone starts

    def body(self, message, start_ns, end_ns):
        readings = []
        counts = {}
        period = self.length
        # The recording looped from this phone's phase, its times moved to [start_ns, end_ns).
        offset = (start_ns + self.phase) % period
        base = start_ns - offset
        while base < end_ns:
            lo = bisect.bisect_left(self.times, start_ns - base)
            hi = bisect.bisect_left(self.times, end_ns - base)
            for r_t, sensor, x, y, z in self.rows[lo:hi]:
                at = base + r_t
                readings.append('{"name":"%s","time":%d,"values":{"x":%r,"y":%r,"z":%r}}' % (sensor, at, x, y, z))
                counts[sensor] = counts.get(sensor, 0) + 1
            base += period
        text = '{"messageId":%d,"sessionId":"%s","deviceId":"%s","payload":[%s]}' % (
            message, self.session, self.device, ",".join(readings))
        return text.encode(), counts

    def send(self, body):
        url = self.nodes[self.node]
        if self.connection is None or self.connection[0] != url:
            if self.connection:
                self.connection[1].close()
            parts = urllib.parse.urlsplit(url)
            self.connection = (url, http.client.HTTPConnection(parts.hostname, parts.port, timeout=10))
        headers = {"Content-Type": "application/json"}
        if self.args.token:
            headers["Authorization"] = "Bearer " + self.args.token
        try:
            self.connection[1].request("POST", "/", body=body, headers=headers)
            response = self.connection[1].getresponse()
            response.read()
            return response.status
        except (OSError, http.client.HTTPException):
            self.connection[1].close()
            self.connection = None
            return None

    def run(self, start_wall, stop_at):
        message = 0
        batch_ns = int(self.args.batch * 1e9)
        next_due = start_wall + random.random() * self.args.batch
        while time.time() < stop_at:
            now = time.time()
            if now < next_due:
                time.sleep(min(next_due - now, stop_at - now) if stop_at > now else 0)
                continue
            message += 1
            end_ns = int(next_due * 1e9)
            body, counts = self.body(message, end_ns - batch_ns, end_ns)
            sent_at = time.time()
            attempts = 0
            while True:
                attempts += 1
                status = self.send(body)
                if status == 200:
                    break
                self.stats.note_retry(status)
                if time.time() > stop_at + self.args.grace:
                    self.stats.note_lost()
                    return
                time.sleep(min(2.0, 0.1 * attempts))
                if self.args.move_every and attempts % 3 == 0:
                    self.node = (self.node + 1) % len(self.nodes)  # a node that stays down: another one
            latency = time.time() - sent_at
            self.stats.note_ack(latency, sum(counts.values()), time.time() - next_due)
            self.ledger.write(self.device, self.session, message, counts)
            if self.args.move_every and message % self.args.move_every == 0:
                self.node = (self.node + 1) % len(self.nodes)
            next_due += self.args.batch
        if self.connection:
            self.connection[1].close()


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.latencies = []
        self.acks = 0
        self.readings = 0
        self.retries = {}
        self.lost = 0
        self.behind = 0.0

    def note_ack(self, latency, readings, behind):
        with self.lock:
            self.latencies.append(latency)
            self.acks += 1
            self.readings += readings
            self.behind = max(self.behind * 0.99, behind)

    def note_retry(self, status):
        with self.lock:
            key = str(status) if status else "no answer"
            self.retries[key] = self.retries.get(key, 0) + 1

    def note_lost(self):
        with self.lock:
            self.lost += 1

    def snapshot(self):
        with self.lock:
            lat = sorted(self.latencies)
            def q(f):
                return lat[min(len(lat) - 1, int(len(lat) * f))] * 1000 if lat else 0.0
            return {"acknowledged": self.acks, "readings": self.readings, "retries": dict(self.retries),
                    "lost": self.lost, "latency_p50_ms": round(q(0.5), 2), "latency_p99_ms": round(q(0.99), 2),
                    "latency_max_ms": round(lat[-1] * 1000, 2) if lat else 0.0}


class Ledger:
    def __init__(self, path):
        self.lock = threading.Lock()
        self.file = open(path, "w") if path else None

    def write(self, device, session, message, counts):
        if not self.file:
            return
        line = json.dumps({"device": device, "session": session, "message": message, "sensors": counts})
        with self.lock:
            self.file.write(line + "\n")

    def close(self):
        if self.file:
            self.file.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", required=True, help="comma-separated http://HOST:PORT of the ingest nodes")
    parser.add_argument("--phones", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--batch", type=float, default=1.0, help="seconds of readings per push")
    parser.add_argument("--token", default=os.environ.get("COREMOTION_SENSORLOGGER_TOKEN"))
    parser.add_argument("--move-every", type=int, default=0, help="move each phone to the next node every K pushes")
    parser.add_argument("--recording", help="a Sensor Logger export folder")
    parser.add_argument("--accelerometer", choices=sorted(ACCELEROMETERS), default="uncalibrated",
                        help="the accelerometer sent: uncalibrated (with gravity; the nodes derive steps) or user")
    parser.add_argument("--ledger", help="write every acknowledged push here (JSON lines)")
    parser.add_argument("--grace", type=float, default=120, help="seconds after the end a push is still resent")
    parser.add_argument("--max-behind", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args()
    random.seed(args.seed)
    folder = args.recording
    if not folder:
        data = os.environ.get("COREMOTION_DATA", os.path.join(ROOT, "..", "shared", "data"))
        candidate = os.path.join(data, "iphone13-walk-sensorlogger")
        folder = candidate if os.path.isdir(candidate) else os.path.join(ROOT, "Tests/Fixtures/recordings/sensorlogger/ios-walk")
    rows, length = load_recording(folder, args.accelerometer)
    nodes = [n.strip() for n in args.nodes.split(",") if n.strip()]
    stats = Stats()
    ledger = Ledger(args.ledger)
    start = time.time() + 0.5
    stop_at = start + args.seconds
    phones = [Phone(i, args, rows, length, nodes, ledger, stats) for i in range(args.phones)]
    threads = [threading.Thread(target=p.run, args=(start, stop_at), daemon=True) for p in phones]
    for t in threads:
        t.start()
    print(f"{args.phones} phones, {len(nodes)} node(s), {args.batch:g} s pushes of {os.path.basename(folder)} "
          f"(accelerometer, gyroscope, magnetometer), {args.seconds:g} s", file=sys.stderr, flush=True)
    while any(t.is_alive() for t in threads):
        for t in threads:
            t.join(timeout=5)
            break
        s = stats.snapshot()
        print(f"  {time.time() - start:5.0f} s: {s['acknowledged']} pushes acknowledged, {s['readings']} readings, "
              f"retries {s['retries']}, p99 {s['latency_p99_ms']} ms", file=sys.stderr, flush=True)
    ledger.close()
    summary = stats.snapshot()
    summary.update({"phones": args.phones, "seconds": args.seconds, "nodes": len(nodes),
                    "expected_pushes": int(args.phones * args.seconds / args.batch),
                    "behind_seconds": round(stats.behind, 2)})
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        for k in sorted(summary):
            print(f"{k}: {summary[k]}")
    ok = summary["lost"] == 0 and stats.behind <= args.max_behind
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
