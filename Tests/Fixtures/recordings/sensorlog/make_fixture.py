#!/usr/bin/env python3
"""Writes a hand-made SensorLog CSV (synthetic values written for swift-core-motion; no recorded data).

The header is the column list of SensorLog 5 for an iPhone as it appears in public code that reads the
app's files (pyLiveNodes `In_sensorlog_app`, jhuwit/actiread), with the activity columns after the
motion block and battery/label columns at the end. One row per 10 ms logging tick for 3 s; like the
app, every sensor repeats its last value (and timestamp) until it has a new sample:
- accelerometer and gyroscope at 100 Hz (the accelerometer misses one tick: row 58 repeats row 57),
- magnetometer at 50 Hz, device motion at 100 Hz stamped 2.5 ms after the raw sample it comes from
  (raw acceleration = gravity + user acceleration of the same instant),
- altimeter at 1 Hz (kPa), location at 1 Hz from row 20, two activity updates, two pedometer updates.
Values have six decimals. loggingTime is written 1.3 ms after the newest sample of its row.
Run from this folder: python3 make_fixture.py
"""
import math, os

HEADER = ["loggingTime(txt)", "loggingSample(N)", "locationTimestamp_since1970(s)", "locationLatitude(WGS84)",
          "locationLongitude(WGS84)", "locationAltitude(m)", "locationSpeed(m/s)", "locationSpeedAccuracy(m/s)",
          "locationCourse(°)", "locationCourseAccuracy(°)", "locationVerticalAccuracy(m)", "locationHorizontalAccuracy(m)",
          "locationFloor(Z)", "locationHeadingTimestamp_since1970(s)", "locationHeadingX(µT)", "locationHeadingY(µT)",
          "locationHeadingZ(µT)", "locationTrueHeading(°)", "locationMagneticHeading(°)", "locationHeadingAccuracy(°)",
          "accelerometerTimestamp_sinceReboot(s)", "accelerometerAccelerationX(G)", "accelerometerAccelerationY(G)",
          "accelerometerAccelerationZ(G)", "gyroTimestamp_sinceReboot(s)", "gyroRotationX(rad/s)", "gyroRotationY(rad/s)",
          "gyroRotationZ(rad/s)", "magnetometerTimestamp_sinceReboot(s)", "magnetometerX(µT)", "magnetometerY(µT)",
          "magnetometerZ(µT)", "motionTimestamp_sinceReboot(s)", "motionYaw(rad)", "motionRoll(rad)", "motionPitch(rad)",
          "motionRotationRateX(rad/s)", "motionRotationRateY(rad/s)", "motionRotationRateZ(rad/s)",
          "motionUserAccelerationX(G)", "motionUserAccelerationY(G)", "motionUserAccelerationZ(G)",
          "motionAttitudeReferenceFrame(txt)", "motionQuaternionX(R)", "motionQuaternionY(R)", "motionQuaternionZ(R)",
          "motionQuaternionW(R)", "motionGravityX(G)", "motionGravityY(G)", "motionGravityZ(G)", "motionMagneticFieldX(µT)",
          "motionMagneticFieldY(µT)", "motionMagneticFieldZ(µT)", "motionHeading(°)", "motionMagneticFieldCalibrationAccuracy(Z)",
          "activityTimestamp_sinceReboot(s)", "activity(txt)", "activityActivityConfidence(Z)", "activityActivityStartDate(txt)",
          "pedometerStartDate(txt)", "pedometerNumberofSteps(N)", "pedometerAverageActivePace(s/m)", "pedometerCurrentPace(s/m)",
          "pedometerCurrentCadence(steps/s)", "pedometerDistance(m)", "pedometerFloorAscended(N)", "pedometerFloorDescended(N)",
          "pedometerEndDate(txt)", "altimeterTimestamp_sinceReboot(s)", "altimeterReset(bool)", "altimeterRelativeAltitude(m)",
          "altimeterPressure(kPa)", "deviceID(txt)", "deviceOrientationTimeStamp_since1970(s)", "deviceOrientation(Z)",
          "batteryState(R)", "batteryLevel(Z)", "label(N)"]

BOOT = 62608.104213            # sinceReboot of the first raw sample
WALL0 = 1724328727.869         # 2024-08-22 14:12:07.869 +0200, wall clock of BOOT
TZ = 2 * 3600
N = 300

def qmul(a, b):
    aw, ax, ay, az = a; bw, bx, by, bz = b
    return (aw*bw - ax*bx - ay*by - az*bz, aw*bx + ax*bw + ay*bz - az*by,
            aw*by - ax*bz + ay*bw + az*bx, aw*bz + ax*by - ay*bx + az*bw)
def conj(q): return (q[0], -q[1], -q[2], -q[3])
def axis(ax, ang):
    s = math.sin(ang/2); return (math.cos(ang/2), ax[0]*s, ax[1]*s, ax[2]*s)
def rot(q, v): return qmul(qmul(q, (0.0,)+tuple(v)), conj(q))[1:]
def angles(t): return 0.3 + 0.5*t, 0.4*math.sin(2*math.pi*0.7*t), 0.2*math.cos(2*math.pi*0.5*t)
def attitude(t):
    yaw, pitch, roll = angles(t)
    return qmul(qmul(axis((0,0,1), yaw), axis((1,0,0), pitch)), axis((0,1,0), roll))
def omega(t, h=1e-6):
    q = attitude(t); a = attitude(t-h); b = attitude(t+h)
    dq = tuple((b[i]-a[i])/(2*h) for i in range(4)); w = qmul(conj(q), dq)
    return (2*w[1], 2*w[2], 2*w[3])
def user(t): return (0.05*math.sin(2*math.pi*2*t), 0.1*math.sin(2*math.pi*1.8*t + 1), 0.08*math.cos(2*math.pi*2*t))
FIELD = (21.0, 0.0, -43.0)
BIAS = (0.012, -0.021, 0.004)
IRON = (35.0, -12.0, 8.0)

def stamp(wall):
    local = wall + TZ
    days, rest = divmod(local, 86400)
    import datetime
    d = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=local)
    return d.strftime("%Y-%m-%d %H:%M:%S.") + f"{int(round((local % 1) * 1000)) % 1000:03d} +0200"

f6 = lambda x: f"{x:.6f}"
rows = []
acc_t = gyr_t = mag_t = mot_t = alt_t = None
state = {}
for i in range(N):
    t = i * 0.01                       # time since the first raw sample
    r = {h: "" for h in HEADER}
    r["loggingSample(N)"] = str(i)
    # accelerometer (misses tick 58)
    if i != 58:
        q = attitude(t); g = rot(conj(q), (0, 0, -1)); u = user(t)
        state["acc"] = (f6(BOOT + t), [f6(g[k] + u[k]) for k in range(3)])
    r["accelerometerTimestamp_sinceReboot(s)"], (r["accelerometerAccelerationX(G)"], r["accelerometerAccelerationY(G)"], r["accelerometerAccelerationZ(G)"]) = state["acc"]
    w = omega(t)
    r["gyroTimestamp_sinceReboot(s)"] = f6(BOOT + t + 0.0004)
    r["gyroRotationX(rad/s)"], r["gyroRotationY(rad/s)"], r["gyroRotationZ(rad/s)"] = [f6(w[k] + BIAS[k]) for k in range(3)]
    if i % 2 == 0:
        m = rot(conj(attitude(t)), FIELD)
        state["mag"] = (f6(BOOT + t + 0.0007), [f6(m[k] + IRON[k]) for k in range(3)])
    r["magnetometerTimestamp_sinceReboot(s)"], (r["magnetometerX(µT)"], r["magnetometerY(µT)"], r["magnetometerZ(µT)"]) = state["mag"]
    # device motion of the raw instant t, stamped 2.5 ms later
    q = attitude(t); g = rot(conj(q), (0, 0, -1)); u = user(t); m = rot(conj(q), FIELD); yaw, pitch, roll = angles(t)
    r["motionTimestamp_sinceReboot(s)"] = f6(BOOT + t + 0.0025)
    r["motionYaw(rad)"], r["motionRoll(rad)"], r["motionPitch(rad)"] = f6(yaw), f6(roll), f6(pitch)
    r["motionRotationRateX(rad/s)"], r["motionRotationRateY(rad/s)"], r["motionRotationRateZ(rad/s)"] = [f6(x) for x in w]
    r["motionUserAccelerationX(G)"], r["motionUserAccelerationY(G)"], r["motionUserAccelerationZ(G)"] = [f6(x) for x in u]
    r["motionAttitudeReferenceFrame(txt)"] = "XTrueNorthZVertical"
    r["motionQuaternionX(R)"], r["motionQuaternionY(R)"], r["motionQuaternionZ(R)"], r["motionQuaternionW(R)"] = f6(q[1]), f6(q[2]), f6(q[3]), f6(q[0])
    r["motionGravityX(G)"], r["motionGravityY(G)"], r["motionGravityZ(G)"] = [f6(x) for x in g]
    r["motionMagneticFieldX(µT)"], r["motionMagneticFieldY(µT)"], r["motionMagneticFieldZ(µT)"] = [f6(x) for x in m]
    r["motionHeading(°)"] = f6((360 - math.degrees(yaw)) % 360)
    r["motionMagneticFieldCalibrationAccuracy(Z)"] = "2"
    # altimeter at 1 Hz
    if i % 100 == 0:
        state["alt"] = (f6(BOOT + t + 0.0031), ["false", f6([0, 0.05, 0.08][i // 100]), f6([101.325, 101.3244, 101.32405][i // 100])])
    r["altimeterTimestamp_sinceReboot(s)"], (r["altimeterReset(bool)"], r["altimeterRelativeAltitude(m)"], r["altimeterPressure(kPa)"]) = state["alt"]
    # location at 1 Hz from row 20
    if i >= 20 and (i - 20) % 100 == 0:
        k = (i - 20) // 100
        state["loc"] = [f"{WALL0 + t - 0.2:.3f}", f6(48.7758 + 1e-5 * k), f6(9.1829 + 2e-5 * k), f6(245.2 + 0.1 * k), "0.9", "1.5", "87.0", "12.0", "4.0", "6.5", "0"]
    if "loc" in state:
        names = ["locationTimestamp_since1970(s)", "locationLatitude(WGS84)", "locationLongitude(WGS84)", "locationAltitude(m)", "locationSpeed(m/s)",
                 "locationSpeedAccuracy(m/s)", "locationCourse(°)", "locationCourseAccuracy(°)", "locationVerticalAccuracy(m)", "locationHorizontalAccuracy(m)", "locationFloor(Z)"]
        for n, v in zip(names, state["loc"]): r[n] = v
    # activity: walking known before the log started; running from row 150
    if i < 150:
        r["activityTimestamp_sinceReboot(s)"], r["activity(txt)"], r["activityActivityConfidence(Z)"] = f6(BOOT - 4.2), "walking", "2"
        r["activityActivityStartDate(txt)"] = stamp(WALL0 - 4.2)
    else:
        r["activityTimestamp_sinceReboot(s)"], r["activity(txt)"], r["activityActivityConfidence(Z)"] = f6(BOOT + 1.5), "running", "1"
        r["activityActivityStartDate(txt)"] = stamp(WALL0 + 1.5)
    # pedometer: updates at rows 120 and 250
    if i >= 120:
        steps, end = (4, WALL0 + 1.18) if i < 250 else (8, WALL0 + 2.48)
        r["pedometerStartDate(txt)"] = stamp(WALL0 - 0.1)
        r["pedometerNumberofSteps(N)"] = str(steps)
        r["pedometerDistance(m)"] = f"{0.7 * steps:.2f}"
        r["pedometerEndDate(txt)"] = stamp(end)
    r["deviceID(txt)"] = "handmade"
    r["deviceOrientation(Z)"] = "1"
    r["batteryState(R)"] = "1"
    r["batteryLevel(Z)"] = "0.81"
    r["label(N)"] = "0"
    newest = max(float(r["accelerometerTimestamp_sinceReboot(s)"]), float(r["gyroTimestamp_sinceReboot(s)"]),
                 float(r["magnetometerTimestamp_sinceReboot(s)"]), float(r["motionTimestamp_sinceReboot(s)"]),
                 float(r["altimeterTimestamp_sinceReboot(s)"]))
    r["loggingTime(txt)"] = stamp(WALL0 + (newest - BOOT) + 0.0013)
    rows.append(",".join(r[h] for h in HEADER))

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "handmade-sensorlog.csv"), "w") as f:
    f.write(",".join(HEADER) + "\n")
    for row in rows: f.write(row + "\n")
