#!/usr/bin/env python3
"""Writes the hand-made Sensor Logger fixtures (synthetic data, written for swift-core-motion; no
recorded data is copied). A phone turns slowly with a small periodic user acceleration; the files
follow the layout and units of Sensor Logger 1.43 exports (see the app's UNITS.md / COORDINATES.md):

- ios-walk/: iOS, standardisation off: columns z,y,x; raw accelerometer in g (Apple's sign);
  Accelerometer (user acceleration) and Gravity in m/s^2 (Apple's sign); Orientation quaternion
  device -> x-north z-up; Barometer pressure hPa. Device motion is stamped 2.5 ms after the raw
  sample it comes from, and raw = gravity + user acceleration exactly, as measured on a real iPhone.
- ios-walk.zip: the same files inside a folder of a zip archive.
- android-walk/: the same motion as Android writes it: m/s^2 with the opposite sign for
  accelerations, orientation as a rotation vector device -> ENU.

Run from this folder: python3 make_fixture.py
"""
import math, os, zipfile

G = 9.80665
EPOCH_MS = 1735689600000  # 2025-01-01T00:00:00Z
RATE = 100.0
N = 150
LAG = 0.0025

def qmul(a, b):
    aw, ax, ay, az = a; bw, bx, by, bz = b
    return (aw*bw - ax*bx - ay*by - az*bz, aw*bx + ax*bw + ay*bz - az*by,
            aw*by - ax*bz + ay*bw + az*bx, aw*bz + ax*by - ay*bx + az*bw)
def conj(q): return (q[0], -q[1], -q[2], -q[3])
def axis(ax, ang):
    s = math.sin(ang/2); return (math.cos(ang/2), ax[0]*s, ax[1]*s, ax[2]*s)
def rot(q, v):
    r = qmul(qmul(q, (0.0,)+tuple(v)), conj(q)); return r[1:]
def angles(t):
    yaw = 0.3 + 0.5*t
    pitch = 0.4*math.sin(2*math.pi*0.7*t)
    roll = 0.2*math.cos(2*math.pi*0.5*t)
    return yaw, pitch, roll
def attitude(t):
    yaw, pitch, roll = angles(t)
    # Apple: R = Rz(yaw) Rx(pitch) Ry(roll)
    return qmul(qmul(axis((0,0,1), yaw), axis((1,0,0), pitch)), axis((0,1,0), roll))
def omega(t, h=1e-6):
    q = attitude(t); a = attitude(t-h); b = attitude(t+h)
    dq = tuple((b[i]-a[i])/(2*h) for i in range(4))
    w = qmul(conj(q), dq)
    return (2*w[1], 2*w[2], 2*w[3])
def user(t):
    return (0.05*math.sin(2*math.pi*2*t), 0.1*math.sin(2*math.pi*1.8*t + 1), 0.08*math.cos(2*math.pi*2*t))

BIAS = (0.012, -0.021, 0.004)
HARD_IRON = (35.0, -12.0, 8.0)
FIELD_REF = (21.0, 0.0, -43.0)  # µT in x-north, y-west, z-up

raw_t = [0.005 + i/RATE for i in range(N)]
dm_t = [t + LAG for t in raw_t]

def ns(t): return EPOCH_MS*1_000_000 + round(t*1e9)
def row(t, vals): return f"{ns(t)},{t!r}," + ",".join(repr(v) for v in vals)

def write(folder, name, header, rows):
    with open(os.path.join(folder, name), 'w') as f:
        f.write(header + "\n")
        for r in rows: f.write(r + "\n")

def export(folder, android):
    os.makedirs(folder, exist_ok=True)
    sign = -G if android else 1.0          # raw accelerometer: g (iOS) or m/s^2 Android sign
    msign = -G if android else G           # user acceleration, gravity: m/s^2
    raw, grav, usr, gyro_u, gyro, mag_u, mag, ori, compass = [], [], [], [], [], [], [], [], []
    for t, td in zip(raw_t, dm_t):
        q = attitude(t)
        g = rot(conj(q), (0, 0, -1))         # gravity in device axes, g
        u = user(t)
        a = tuple(g[i] + u[i] for i in range(3))
        w = omega(t)
        m = rot(conj(q), FIELD_REF)
        zyx = lambda v: (v[2], v[1], v[0])
        raw.append(row(t, zyx(tuple(x*sign for x in a))))
        grav.append(row(td, zyx(tuple(x*msign for x in g))))
        usr.append(row(td, zyx(tuple(x*msign for x in u))))
        gyro_u.append(row(t, zyx(tuple(w[i] + BIAS[i] for i in range(3)))))
        gyro.append(row(td, zyx(w)))
        mag_u.append(row(t, zyx(tuple(m[i] + HARD_IRON[i] for i in range(3)))))
        mag.append(row(td, zyx(m)))
        yaw, pitch, roll = angles(t)
        qo = qmul(axis((0,0,1), math.pi/2), q) if android else q  # Android: device -> ENU
        ori.append(row(td, (yaw, qo[1], qo[3], roll, qo[0], qo[2], pitch)))
        compass.append(row(td, ((360 - math.degrees(yaw)) % 360,)))
    write(folder, "AccelerometerUncalibrated.csv", "time,seconds_elapsed,z,y,x", raw)
    if android:
        write(folder, "TotalAcceleration.csv", "time,seconds_elapsed,z,y,x", raw)
    write(folder, "Gravity.csv", "time,seconds_elapsed,z,y,x", grav)
    write(folder, "Accelerometer.csv", "time,seconds_elapsed,z,y,x", usr)
    write(folder, "GyroscopeUncalibrated.csv", "time,seconds_elapsed,z,y,x", gyro_u)
    write(folder, "Gyroscope.csv", "time,seconds_elapsed,z,y,x", gyro)
    write(folder, "MagnetometerUncalibrated.csv", "time,seconds_elapsed,z,y,x", mag_u)
    write(folder, "Magnetometer.csv", "time,seconds_elapsed,z,y,x", mag)
    write(folder, "Orientation.csv", "time,seconds_elapsed,yaw,qx,qz,roll,qw,qy,pitch", ori)
    write(folder, "Compass.csv", "time,seconds_elapsed,magneticBearing", compass)
    write(folder, "Barometer.csv", "time,seconds_elapsed,relativeAltitude,pressure",
          [row(-0.3, (0, 1013.25)), row(0.7, (0.08, 1013.24)), row(1.2, (0.11, 1013.2375))])
    write(folder, "Pedometer.csv", "time,seconds_elapsed,steps", [row(0.9, (2,)), row(1.4, (3,))])
    write(folder, "Location.csv",
          "time,seconds_elapsed,altitude,speedAccuracy,bearingAccuracy,latitude,altitudeAboveMeanSeaLevel,bearing,horizontalAccuracy,verticalAccuracy,longitude,speed",
          [row(0.5, (52.5, -1, -1, 51.752, 4.1, -1, 8.0, 3, -1.2577, -1))])
    open(os.path.join(folder, "Annotation.csv"), 'w').close()
    with open(os.path.join(folder, "Metadata.csv"), 'w') as f:
        f.write("version,device name,recording epoch time,recording time,recording timezone,platform,appVersion,sensors,sampleRateMs,standardisation\n")
        device = "Pixel 7" if android else "iPhone 13"
        f.write(f"3,{device},{EPOCH_MS},2025-01-01_00-00-00,UTC,{'android' if android else 'ios'},1.43.2,"
                "Accelerometer|Gravity|Gyroscope|Orientation|Magnetometer|Compass|Barometer|Location|Pedometer|Annotation|"
                "MagnetometerUncalibrated|GyroscopeUncalibrated|AccelerometerUncalibrated,10|10|10|10|10|10|0|0|10||10|10|10,false")

here = os.path.dirname(os.path.abspath(__file__))
export(os.path.join(here, "ios-walk"), android=False)
export(os.path.join(here, "android-walk"), android=True)
with zipfile.ZipFile(os.path.join(here, "ios-walk.zip"), 'w', zipfile.ZIP_DEFLATED) as z:
    for name in sorted(os.listdir(os.path.join(here, "ios-walk"))):
        info = zipfile.ZipInfo("ios-walk/" + name, date_time=(2025, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, open(os.path.join(here, "ios-walk", name), 'rb').read())
