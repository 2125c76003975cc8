@_exported import MotionClient
@_exported import MotionSamples
