import Foundation
import MotionHistory
import PostgresNIO
