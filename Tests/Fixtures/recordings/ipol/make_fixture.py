#!/usr/bin/env python3
"""Writes a hand-made trial in the layout of the IPOL gait data set (synthetic values written for
swift-core-motion; the data set itself is AGPL-3.0 and never enters this repository).

handmade-gait.zip holds GaitData/99-1_lb.txt (XSens lower-back file: a frequency line, a tab-separated
header, 100 Hz; X up, Y left, Z backward, specific force in m/s^2, rad/s) and GaitData/99-1.json (foot
events as [strike, off] sample indices). The subject stands for 1 s, then walks at 1.8 steps/s.
Run from this folder: python3 make_fixture.py
"""
import json, math, os, zipfile

RATE = 100
N = 600
TILT = math.radians(20)  # Z (backward) tilted up by 20 degrees, as on the sloping skin over L5
rows = []
for i in range(N):
    t = i / RATE
    walking = t >= 1.0
    s = 1.0 if walking else 0.0
    ax = 9.81 * math.cos(TILT) + s * 1.5 * math.sin(2 * math.pi * 1.8 * t)
    ay = s * 0.5 * math.sin(2 * math.pi * 0.9 * t)
    az = 9.81 * math.sin(TILT) + s * 0.8 * math.sin(2 * math.pi * 1.8 * t + 1)
    gx = 0.002 + s * 0.3 * math.sin(2 * math.pi * 0.9 * t)
    gy = -0.001 + s * 0.2 * math.sin(2 * math.pi * 1.8 * t)
    gz = 0.003 + s * 0.4 * math.cos(2 * math.pi * 0.9 * t)
    rows.append(f"{i + 1}.0\t{ax:.6f}\t{ay:.6f}\t{az:.6f}\t{gx:.6f}\t{gy:.6f}\t{gz:.6f}\t-0.364258\t0.075195\t-0.785645")
text = "Acquisition frequency: 100 Hz\nPacketCounter\tAcc_X\tAcc_Y\tAcc_Z\tGyr_X\tGyr_Y\tGyr_Z\tMag_X\tMag_Y\tMag_Z\n" + "\n".join(rows) + "\n"
strikes = [100 + round(k * RATE / 1.8) for k in range(9)]
left = [[s, s + 60] for s in strikes[0::2]]
right = [[s, s + 60] for s in strikes[1::2]]
meta = {"Subject": 99, "Trial": 1, "Filename": "99-1", "Age": 40, "Gender": "F", "Height": 170.0, "Weight": 60.0,
        "TrialBoundaries": [100, 590], "UTurnBoundaries": [300, 350], "LeftFootEvents": left, "RightFootEvents": right}
here = os.path.dirname(os.path.abspath(__file__))
with zipfile.ZipFile(os.path.join(here, "handmade-gait.zip"), "w", zipfile.ZIP_DEFLATED) as z:
    for name, body in [("GaitData/99-1_lb.txt", text), ("GaitData/99-1.json", json.dumps(meta))]:
        info = zipfile.ZipInfo(name, date_time=(2025, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, body)
