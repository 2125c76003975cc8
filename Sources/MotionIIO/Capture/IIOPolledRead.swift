extension IIOSensorInfo {
    /// Reads the sensor's attributes now (`_raw` or `_input`) and converts them: one polled sample,
    /// stamped with the middle of the reads on CLOCK_MONOTONIC. Throws the read's error; never
    /// returns a made-up value.
    public func readNow() throws(IIOError) -> SensorSample {
        try read(vector: vectorConversion, pressure: pressureConversion, temperature: temperatureConversion)
    }

    /// ``readNow()`` with the conversions precomputed (the polling loop's hot path).
    func read(vector: IIOVectorConversion?, pressure: IIOScalarConversion?, temperature: IIOScalarConversion?) throws(IIOError) -> SensorSample {
        let start = IIOTimestampClock.monotonicNow()
        func value(_ c: IIOChannelInfo) throws(IIOError) -> Double {
            c.isProcessed ? try SysfsFile.readDouble(c.valuePath) : Double(try SysfsFile.readInteger(c.valuePath))
        }
        if let vector {
            let raw = Vector3(try value(channels[0]), try value(channels[1]), try value(channels[2]))
            let v = TimedVector(time: (start + IIOTimestampClock.monotonicNow()) / 2, value: vector.convert(raw))
            switch kind {
            case .accelerometer: return .accelerometer(v)
            case .gyroscope: return .gyroscope(v)
            default: return .magnetometer(v)
            }
        }
        guard let pressure else {
            throw IIOError.malformedAttribute(path: channels.first?.valuePath ?? deviceDirectory, value: "", expected: "a readable sensor")
        }
        let kPa = pressure.convert(try value(channels[0]))
        var celsius: Double?
        if let t = self.temperature, let conversion = temperature { celsius = conversion.convert(try value(t)) }
        return .barometer(PressureReading(time: (start + IIOTimestampClock.monotonicNow()) / 2, kilopascals: kPa, celsius: celsius))
    }
}
