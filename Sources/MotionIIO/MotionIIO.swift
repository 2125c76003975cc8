@_exported import MotionSamples
