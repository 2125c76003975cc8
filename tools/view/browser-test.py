#!/usr/bin/env python3
"""Browser test of `coremotion view` in headless Chromium (Debian's chromium and chromium-driver, selenium).

Starts `coremotion view` on a recording (the timeline) and on a 1 kHz simulated device (live), opens
each page and checks: the page loads and connects, the plots move as samples arrive, the reference
frame switch and pause work, a seek moves the play head (recording), and the browser console has no
error. Saves a screenshot of each page. Measures the drawing rate (requestAnimationFrame frames per
second) with the 1 kHz device and the server's CPU time with one page open (/proc/PID/stat). Then each
other device kind briefly (emulated IIO sensors, the system service, a recording as a live device, a phone
pushing with Sensor Logger with headphones on the same receiver): samples arrive, no console error, and the
headphones' box appears beside the phone.

    tools/view/browser-test.py [--binary .build/debug/coremotion] [--out DIR] [--recording FILE]
                               [--cpu-seconds 20] [--strict-performance]

Prints one line per check and ends with 'N passed, N failed'; exits 1 if a check failed. The speed figures
are printed (and only fail the run with --strict-performance: CI's machine is shared).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from headless_chromium import browser  # noqa: E402
results = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + (": " + detail if detail else ""), flush=True)
    return ok


class ViewServer:
    """`coremotion view ARGS --port 0`; the address is read from its first line of output."""

    def __init__(self, binary, args, environment=None):
        self.process = subprocess.Popen([binary, "view", "--port", "0"] + args, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True,
                                        env=dict(os.environ, **(environment or {})))
        self.url = None
        self.errors = []
        threading.Thread(target=self._drain_errors, daemon=True).start()
        deadline = time.time() + 180
        while time.time() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            match = re.search(r"(http://\S+)", line)
            if match:
                self.url = match.group(1)
                break
        if self.url is None:
            self.stop()
            raise RuntimeError("coremotion view printed no address; stderr: " + "".join(self.errors)[-2000:])

    def _drain_errors(self):
        for line in self.process.stderr:
            self.errors.append(line)

    def cpu_seconds(self):
        with open(f"/proc/{self.process.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = os.sysconf(os.sysconf_names["SC_CLK_TCK"])
        return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def state(driver, expression):
    return driver.execute_script("return window.coremotionView ? window.coremotionView." + expression + " : null;")


def wait_for(driver, expression, predicate, timeout=15):
    deadline = time.time() + timeout
    value = None
    while time.time() < deadline:
        value = state(driver, expression)
        if predicate(value):
            return True, value
        time.sleep(0.1)
    return False, value


def console_errors(driver):
    return [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]


def common_checks(driver, label):
    check(f"{label}: the page loads", "coremotion view" in driver.title, driver.title)
    ok, _ = wait_for(driver, "connected", lambda v: v is True)
    check(f"{label}: the WebSocket connects", ok)
    ok, _ = wait_for(driver, "latestTime", lambda v: v is not None, timeout=30)
    check(f"{label}: samples arrive", ok)
    revision, samples, latest = state(driver, "plotRevision"), state(driver, "samples"), state(driver, "latestTime")
    time.sleep(2)
    revision2, samples2, latest2 = state(driver, "plotRevision"), state(driver, "samples"), state(driver, "latestTime")
    check(f"{label}: the plots move as samples arrive", revision2 > revision and samples2 > samples and latest2 > latest,
          f"revision {revision}→{revision2}, samples {samples}→{samples2}, time {latest}→{latest2}")

    frames = [o.get_attribute("value") for o in driver.find_elements(By.CSS_SELECTOR, "#frame option")]
    current = state(driver, "frame")
    others = [f for f in frames if f != current]
    if check(f"{label}: a second reference frame is offered", bool(others), ", ".join(frames)):
        Select(driver.find_element(By.ID, "frame")).select_by_value(others[0])
        ok, value = wait_for(driver, "frame", lambda v: v == others[0])
        check(f"{label}: the frame switch reaches the server and back", ok, f"{current} → {value}")
        before = state(driver, "samples")
        ok, _ = wait_for(driver, "samples", lambda v: v > before + 10)
        check(f"{label}: samples go on in the new frame", ok)


def pause_checks(driver, label):
    driver.find_element(By.ID, "pause").click()
    ok, _ = wait_for(driver, "paused", lambda v: v is True, timeout=5)
    time.sleep(0.5)
    latest = state(driver, "latestTime")
    time.sleep(1.5)
    frozen = state(driver, "latestTime") == latest
    check(f"{label}: pause stops the plots", ok and frozen, f"time {latest} → {state(driver, 'latestTime')}")
    driver.find_element(By.ID, "pause").click()
    ok, _ = wait_for(driver, "paused", lambda v: v is False, timeout=5)
    latest = state(driver, "latestTime")
    ok2, _ = wait_for(driver, "latestTime", lambda v: v is not None and v > latest, timeout=5)
    check(f"{label}: play resumes them", ok and ok2)


def run_recording(args, out):
    server = ViewServer(args.binary, [args.recording])
    driver = browser()
    try:
        driver.get(server.url)
        common_checks(driver, "recording")
        ok, timeline = wait_for(driver, "timeline", lambda v: v is not None)
        check("recording: the timeline is shown", ok and driver.find_element(By.ID, "timeline-bar").is_displayed(), str(timeline))
        duration = timeline[1] - timeline[0] if timeline else 0
        target = round(duration * 0.6, 2)
        driver.execute_script(
            "const b = document.getElementById('timeline'); b.value = arguments[0];"
            "b.dispatchEvent(new Event('input')); b.dispatchEvent(new Event('change'));", target)
        ok, clock = wait_for(driver, "clock", lambda c: c is not None and abs((c["time"] - timeline[0]) - target) < 1.5)
        check("recording: a seek moves the play head", ok, f"asked {target} s, clock {clock}")
        Select(driver.find_element(By.ID, "speed")).select_by_value("2")
        ok, clock = wait_for(driver, "clock", lambda c: c is not None and c["speed"] == 2)
        check("recording: the speed changes", ok)
        pause_checks(driver, "recording")
        time.sleep(1)
        driver.save_screenshot(os.path.join(out, "view-recording.png"))
        errors = console_errors(driver)
        check("recording: no console errors", not errors, str(errors)[:500])
    finally:
        driver.quit()
        server.stop()


def run_simulator(args, out):
    server = ViewServer(args.binary, ["--device", "sim:" + os.path.join(ROOT, "tools/view/walking-1khz.json")])
    figures = {}
    # The process with no page open: the simulated 1 kHz device and the engines behind the API.
    time.sleep(2)
    start_cpu, start = server.cpu_seconds(), time.time()
    time.sleep(args.cpu_seconds)
    figures["cpu_percent_no_page"] = 100 * (server.cpu_seconds() - start_cpu) / (time.time() - start)
    driver = browser()
    try:
        driver.get(server.url)
        common_checks(driver, "simulator 1 kHz")
        pause_checks(driver, "simulator 1 kHz")
        # Drawing rate: the page counts requestAnimationFrame callbacks per second.
        time.sleep(2)
        rates = []
        for _ in range(10):
            time.sleep(0.5)
            rates.append(state(driver, "fps"))
        rates.sort()
        figures["fps_median"] = rates[len(rates) // 2]
        figures["fps_min"] = rates[0]
        # The server's CPU with this one page open.
        start_cpu, start = server.cpu_seconds(), time.time()
        time.sleep(args.cpu_seconds)
        figures["cpu_percent"] = 100 * (server.cpu_seconds() - start_cpu) / (time.time() - start)
        driver.save_screenshot(os.path.join(out, "view-simulator.png"))
        errors = console_errors(driver)
        check("simulator 1 kHz: no console errors", not errors, str(errors)[:500])
    finally:
        driver.quit()
        server.stop()
    print(f"FIGURE drawing with a 1 kHz device: median {figures['fps_median']:.1f} frames/s "
          f"(lowest of 10 half-second readings {figures['fps_min']:.1f})", flush=True)
    print(f"FIGURE process CPU (1 kHz simulated device, engines, server) with no page: {figures['cpu_percent_no_page']:.2f} %, "
          f"with one page open: {figures['cpu_percent']:.2f} % of one core ({args.cpu_seconds:.0f} s each)", flush=True)
    serving = figures["cpu_percent"] - figures["cpu_percent_no_page"]
    print(f"FIGURE serving one page: {serving:.2f} % of one core; load average {os.getloadavg()[0]:.2f}", flush=True)
    if args.strict_performance:
        check("drawing at 50 frames/s or more", figures["fps_median"] >= 50)
        check("serving one page at 5 % of one core or less", serving <= 5)


def run_devices(args, out):
    """Every other device kind, briefly: emulated IIO sensors, the system service (coremotiond on the
    simulator, a temporary socket) and a recording played as a live device (replay:)."""
    work = tempfile.mkdtemp(prefix="coremotion-view-devices-")
    daemon = os.path.join(os.path.dirname(args.binary), "coremotiond")
    helpers = [subprocess.Popen([args.binary, "iio-emulate", "--root", os.path.join(work, "iio"), "--duration", "120"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    devices = ["iio:" + os.path.join(work, "iio"),
               "replay:" + os.path.join(ROOT, "Tests/Fixtures/recordings/sensorlogger/ios-walk.zip") + "?loop=true"]
    if os.path.exists(daemon):
        socket = os.path.join(work, "cm.sock")
        helpers.append(subprocess.Popen([daemon, "--socket", socket, "--device", "sim:walking-in-hand",
                                         "--history", os.path.join(work, "history.sqlite"), "--no-authorization"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        devices.append("service:" + socket)
    time.sleep(3)
    try:
        for device in devices:
            kind = device.split(":")[0]
            server = ViewServer(args.binary, ["--device", device])
            driver = browser()
            try:
                driver.get(server.url)
                ok, _ = wait_for(driver, "latestTime", lambda v: v is not None, timeout=20)
                before = state(driver, "samples")
                time.sleep(2)
                after = state(driver, "samples")
                check(f"{kind}: samples arrive and the plots move", ok and after > before, f"{before}→{after}")
                driver.save_screenshot(os.path.join(out, f"view-{kind}.png"))
                errors = console_errors(driver)
                check(f"{kind}: no console errors", not errors, str(errors)[:500])
            finally:
                driver.quit()
                server.stop()
    finally:
        for helper in helpers:
            helper.terminate()
            try:
                helper.wait(timeout=10)
            except subprocess.TimeoutExpired:
                helper.kill()
        shutil.rmtree(work, ignore_errors=True)


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_phone_export(folder):
    """The committed iPhone walk excerpt (a Sensor Logger export) with the committed AirPods excerpt added as
    its Headphone.csv (gravity in m/s², devicelocation left, times on the walk's clock), for pushing."""
    import json
    import zipfile
    with zipfile.ZipFile(os.path.join(ROOT, "Tests/Fixtures/recordings/sensorlogger/ios-walk.zip")) as archive:
        archive.extractall(folder)
    export = os.path.join(folder, "ios-walk")
    with open(os.path.join(export, "Accelerometer.csv")) as f:
        start_ns = int(f.readlines()[1].split(",")[0])
    rows = [json.loads(line) for line in open(os.path.join(ROOT, "Tests/Fixtures/headphones/airpods-head-shake-excerpt.jsonl")) if line.strip()]
    samples = [r for r in rows if r.get("type") == "sample"]
    with open(os.path.join(export, "Headphone.csv"), "w") as out:
        out.write("time,seconds_elapsed,quaternionW,quaternionX,quaternionY,quaternionZ,rotationRateX,rotationRateY,"
                  "rotationRateZ,accelerationX,accelerationY,accelerationZ,gravityX,gravityY,gravityZ,devicelocation\n")
        for sample in samples:
            elapsed = sample["t"] - samples[0]["t"]
            values = sample["q"] + sample["rot"] + sample["acc"] + [g * 9.80665 for g in sample["grav"]]
            out.write(f"{start_ns + int(round(elapsed * 1e9))},{elapsed!r}," + ",".join(repr(v) for v in values) + ",left\n")
    return export


def run_phone(args, out):
    """A phone on the network with headphones: Sensor Logger's HTTP push (tools/network/push-sensorlogger.py,
    the walk excerpt with AirPods readings, looped) to `--device sensorlogger:127.0.0.1:PORT`, the headphones
    on the same receiver (COREMOTION_HEADPHONE_DEVICE). The plots move and the headphones' box appears."""
    work = tempfile.mkdtemp(prefix="coremotion-view-phone-")
    port = free_port()
    export = make_phone_export(work)
    sender = subprocess.Popen([sys.executable, os.path.join(ROOT, "tools/network/push-sensorlogger.py"), "--url",
                               f"http://127.0.0.1:{port}/push", "--folder", export, "--loop", "--clean", "--quiet"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    address = f"sensorlogger:127.0.0.1:{port}"
    try:
        server = ViewServer(args.binary, ["--device", address], {"COREMOTION_HEADPHONE_DEVICE": address})
        driver = browser()
        try:
            driver.get(server.url)
            ok, _ = wait_for(driver, "latestTime", lambda v: v is not None, timeout=30)
            before = state(driver, "samples")
            time.sleep(2)
            after = state(driver, "samples")
            check("sensorlogger: samples arrive and the plots move", ok and after > before, f"{before}→{after}")
            deadline, note = time.time() + 20, ""
            while time.time() < deadline:
                note = driver.find_element(By.ID, "hp-note").text
                if note == "headphones beside the device":
                    break
                time.sleep(0.2)
            check("sensorlogger: the headphones (same receiver) appear beside the device", note == "headphones beside the device", note)
            driver.save_screenshot(os.path.join(out, "view-sensorlogger-headphones.png"))
            errors = console_errors(driver)
            check("sensorlogger: no console errors", not errors, str(errors)[:500])
        finally:
            driver.quit()
            server.stop()
    finally:
        sender.terminate()
        try:
            sender.wait(timeout=10)
        except subprocess.TimeoutExpired:
            sender.kill()
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/debug/coremotion"))
    parser.add_argument("--out", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "coremotion-view-screenshots"))
    parser.add_argument("--recording", default=os.path.join(ROOT, "Sources/CoreMotionCLI/Resources/demo/broad-06-fast-rotation-excerpt.csv"))
    parser.add_argument("--cpu-seconds", type=float, default=20)
    parser.add_argument("--strict-performance", action="store_true")
    parser.add_argument("--only", choices=["recording", "simulator", "devices", "phone"])
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, run in (("recording", run_recording), ("simulator", run_simulator), ("devices", run_devices),
                      ("phone", run_phone)):
        if args.only and args.only != name:
            continue
        try:
            run(args, args.out)
        except Exception as error:  # a crash of the harness is a failed check, with its reason
            check(f"{name}: the run completes", False, repr(error))
    print(f"screenshots in {args.out}")
    print(f"{results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
