import CoreMotion
