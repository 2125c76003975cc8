import Foundation
import MotionDevices
import MotionService

extension MotionService {
    /// A service as `CoreMotion` composes one in process: the devices the environment names
    /// (`MotionDevices`), their calibration kept for this machine's hardware, the location from
    /// `COREMOTION_LOCATION`.
    static func fromEnvironment(_ environment: [String: String]) throws -> MotionService {
        let selection = try DeviceSelection.fromEnvironment(environment)
        let service = MotionService(
            device: selection.device, keepsCalibration: selection.isMachineHardware, headphones: selection.headphones)
        service.takeLocation(fromEnvironment: environment)
        return service
    }
}
