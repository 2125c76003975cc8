@_exported import MotionClient
