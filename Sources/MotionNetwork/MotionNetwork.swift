// MotionNetwork: live phones as motion devices.
