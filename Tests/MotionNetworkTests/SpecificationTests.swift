import MotionDevices
import MotionNetwork
import MotionService
import Testing

@Suite struct NetworkDeviceSpecificationTests {
    @Test func parsesPhoneForms() throws {
        guard case .phyphox(let p) = try DeviceSpecification.parse("phyphox:http://192.168.1.5:8080?silence=2&platform=ios&start=false") else {
            Issue.record("not phyphox")
            return
        }
        #expect(p.address == PhoneAddress(host: "192.168.1.5", port: 8080) && p.stream.silence == 2 && p.platform == .iOS && !p.startMeasuring)
        #expect(p.stream.wait == 5 && p.stream.delay == 0.3)
        guard case .phyphox(let bare) = try DeviceSpecification.parse("phyphox:phone.local") else { return }
        #expect(bare.address.port == 8080)
        guard case .phyphox(let http) = try DeviceSpecification.parse("phyphox:http://[::1]") else { return }
        #expect(http.address.host == "::1" && http.address.port == 80 && http.url == "http://[::1]:80")
        guard case .sensorServer(let s) = try DeviceSpecification.parse("sensorserver:ws://10.0.0.7:8081/?wait=1") else {
            Issue.record("not sensorserver")
            return
        }
        #expect(s.address.host == "10.0.0.7" && s.address.port == 8081 && s.stream.wait == 1 && s.url == "ws://10.0.0.7:8081")
        #expect(try DeviceSpecification.parse("sensorserver:ws://10.0.0.7:8081").description == "sensorserver:ws://10.0.0.7:8081")
    }

    @Test(arguments: [
        ("phyphox:", "needs the phone's address"),
        ("phyphox", "phyphox:http://HOST:PORT"),
        ("phyphx:http://a:1", "did you mean 'phyphox:'"),
        ("sensorserver:http://a:1", "takes a ws:// address"),
        ("phyphox:http://a:1?silense=2", "did you mean 'silence'"),
        ("phyphox:http://a:1?platform=windows", "platform must be android or ios"),
        ("phyphox:http://a:99999", "port 99999"),
        ("phyphox:http://a:1/get", "without a path"),
        ("sensorserver:ws://a:1?interval=1", "options of sensorserver"),
        ("phyphox:http://a:1?wait=-1", "wait must be a number of seconds"),
    ])
    func refusesWithAReason(_ value: String, _ expected: String) {
        let error = #expect(throws: DeviceSpecificationError.self) { try DeviceSpecification.parse(value) }
        #expect(error?.reason.contains(expected) == true, "\(error?.reason ?? "no error")")
    }
}
