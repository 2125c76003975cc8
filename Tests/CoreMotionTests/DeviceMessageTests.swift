@testable import CoreMotion
import Foundation
import Testing

/// What an app's process prints when `COREMOTION_DEVICE` is misspelt: the API's first use stops the
/// process with this message (`coremotion: …`, exit status 1; `MotionProviders.shared`), never another
/// device. The exit itself is observed by running a process (CoreMotionCLITests' `ToolProcessTests`).
@Suite("Core Motion: a misspelt COREMOTION_DEVICE")
struct DeviceMessageTests {
    @Test("the API's device selection fails with a did-you-mean and the accepted forms", arguments: [
        ("sim:walking", "unknown scene 'walking'; did you mean 'walking-in-hand'? scenes: still-face-up, "),
        ("replya:/data/walk.zip", "unknown device kind 'replya:'; did you mean 'replay:'?"),
        ("replay:/data/walk.zip?sped=2", "unknown option 'sped'; did you mean 'speed'?"),
        ("servise", "unknown device 'servise'; did you mean 'service'?"),
    ])
    func misspelt(_ value: String, _ phrase: String) {
        do {
            let provider = try MotionProviders.makeFromEnvironment(["COREMOTION_DEVICE": value, "COREMOTION_HISTORY": "memory"])
            Issue.record("\(value) gave a provider: \(provider.deviceName)")
        } catch {
            let text = "\(error)"
            #expect(text.hasPrefix("COREMOTION_DEVICE=\"\(value)\": "), "\(text)")
            #expect(text.contains(phrase), "\(text)")
            #expect(text.contains("accepted forms of COREMOTION_DEVICE"))
        }
    }
}
