#!/usr/bin/env python3
"""Writes ios-climb/, a hand-made Sensor Logger export of an iPhone 13 climbing stairs outdoors
(synthetic data, written for swift-core-motion; no recorded data is copied): the barometer
(Barometer.csv, as Core Motion's altimeter delivers it) and GNSS fixes (Location.csv) with a known
true altitude, for the absolute-altitude tests and the `absolute-altitude` compatibility client.

- Truth: 5 s standing at 120.0 m above mean sea level, 30 s climbing 9.0 m at a steady 0.3 m/s,
  55 s standing at 129.0 m (90 s in all).
- Barometer.csv: one row every 1.0628 s (the iPhone 13's altimeter cadence), pressure in hPa from the
  ISA formula with a sea-level pressure of 1012.0 hPa (so the standard pressure altitude reads 10.4 m
  high), plus white noise of 1 Pa; relativeAltitude is the ISA altitude change since the first row,
  as Core Motion reports it.
- Location.csv: a fix every 3 s, altitudeAboveMeanSeaLevel = truth + a correlated error
  (Gauss-Markov, 3 m, 120 s) + 0.5 m white noise, verticalAccuracy 3 m, `altitude` (above the WGS 84
  ellipsoid) 33.4 m lower, horizontal position drifting a few metres.

Run from this folder: python3 make_climb_fixture.py
"""
import math, os, random

EPOCH_MS = 1735689600000  # 2025-01-01T00:00:00Z
SEA_LEVEL_HPA = 1012.0
CADENCE = 1.0628
DURATION = 90.0
rng = random.Random(2025)

def truth(t):
    if t < 5: return 120.0
    if t < 35: return 120.0 + 0.3 * (t - 5)
    return 129.0

def isa_pressure(h, p0):  # hPa at h m
    return p0 * (1 - h / 44330.76923) ** (1 / 0.190263)

def isa_altitude(p, p0=1013.25):
    return 44330.76923 * (1 - (p / p0) ** 0.190263)

def ns(t): return EPOCH_MS * 1_000_000 + round(t * 1e9)

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "ios-climb")
os.makedirs(out, exist_ok=True)

with open(os.path.join(out, "Metadata.csv"), "w") as f:
    f.write("version,device name,recording epoch time,recording time,recording timezone,platform,appVersion,sensors,sampleRateMs,standardisation\n")
    f.write(f"3,iPhone 13,{EPOCH_MS},2025-01-01_00-00-00,UTC,ios,1.43.2,Barometer|Location,0|0,false\n")

rows = []
t = 0.2
p_first = None
while t <= DURATION:
    p = isa_pressure(truth(t), SEA_LEVEL_HPA) + rng.gauss(0, 0.01)
    p_first = p if p_first is None else p_first
    rel = isa_altitude(p) - isa_altitude(p_first)
    rows.append(f"{ns(t)},{t!r},{rel!r},{p!r}")
    t = round(t + CADENCE, 6)
with open(os.path.join(out, "Barometer.csv"), "w") as f:
    f.write("time,seconds_elapsed,relativeAltitude,pressure\n" + "\n".join(rows) + "\n")

rows = []
error = rng.gauss(0, 3)
t = 0.0
lat, lon = 51.7520, -1.2577
while t <= DURATION:
    msl = truth(t) + error + rng.gauss(0, 0.5)
    lat += rng.gauss(0, 0.00001); lon += rng.gauss(0, 0.00001)
    rows.append(f"{ns(t)},{t!r},{msl - 33.4!r},-1,-1,{lat!r},{msl!r},-1,{5 + rng.random()!r},3,{lon!r},-1")
    phi = math.exp(-3 / 120)
    error = phi * error + 3 * math.sqrt(1 - phi * phi) * rng.gauss(0, 1)
    t = round(t + 3.0, 6)
with open(os.path.join(out, "Location.csv"), "w") as f:
    f.write("time,seconds_elapsed,altitude,speedAccuracy,bearingAccuracy,latitude,altitudeAboveMeanSeaLevel,bearing,horizontalAccuracy,verticalAccuracy,longitude,speed\n")
    f.write("\n".join(rows) + "\n")
