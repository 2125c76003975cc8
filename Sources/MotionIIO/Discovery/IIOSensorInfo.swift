/// A channel's buffered-capture controls: `scan_elements/<name>_en`, `_index`, `_type`.
public struct IIOScanElementInfo: Sendable, Hashable {
    /// Channel name, e.g. `in_accel_x`.
    public let name: String
    /// The `_en` attribute.
    public let enablePath: String
    /// The `_index` value.
    public let index: Int
    /// The `_type` value.
    public let type: IIOScanType
}

/// One value channel of a sensor (an axis, a pressure or a temperature).
public struct IIOChannelInfo: Sendable, Hashable {
    /// Channel name, e.g. `in_accel_x`, `in_pressure`, `in_temp`.
    public let name: String
    /// The attribute read when polling: `<name>_raw`, or `<name>_input` for a processed channel.
    public let valuePath: String
    /// True when `valuePath` is `_input`: already in IIO units, no scale or offset.
    public let isProcessed: Bool
    /// IIO units per count (1 for a processed channel).
    public let scale: Double
    /// Attribute the scale came from, if any.
    public let scalePath: String?
    /// Counts added before scaling (0 for a processed channel).
    public let offset: Double
    /// Attribute the offset came from, if any.
    public let offsetPath: String?
    /// Buffered-capture controls, when the device has them for this channel.
    public let scan: IIOScanElementInfo?
}

/// How a sensor's rate is set.
public struct IIORateControl: Sendable, Hashable {
    /// What the driver offers.
    public let rates: IIORates
    /// The `sampling_frequency` attribute to write (per type or device-wide); `nil` when the
    /// driver has none and the rate is only the polling rate.
    public let attributePath: String?
    /// Where `rates` came from (`…_available`), if anywhere.
    public let availablePath: String?
    /// The rate the hardware reported at discovery, Hz.
    public let currentRate: Double?
}

/// One motion sensor found on an IIO device.
public struct IIOSensorInfo: Sendable, Hashable {
    /// Which sensor this is.
    public let kind: SensorKind
    /// The device directory, e.g. `iio:device0`.
    public let deviceDirectory: String
    /// The driver's `name`, e.g. `bmi160`.
    public let driverName: String
    /// The device's `label`, if any (e.g. `accel-display`).
    public let label: String?
    /// x, y, z channels (three-axis sensors) or the single pressure channel.
    public let channels: [IIOChannelInfo]
    /// The temperature channel reported with a barometer, if the device has one.
    public let temperature: IIOChannelInfo?
    /// Chip frame → device frame.
    public let mountMatrix: Matrix3
    /// Where ``mountMatrix`` came from.
    public let mountMatrixSource: IIOMountMatrixSource
    /// The attribute (or udev database file) the matrix came from.
    public let mountMatrixPath: String?
    /// Offered rates and the attribute that sets the rate.
    public let rate: IIORateControl

    /// The three-axis conversion (not for the barometer).
    public var vectorConversion: IIOVectorConversion? {
        guard kind != .barometer, channels.count == 3 else { return nil }
        return IIOVectorConversion(
            kind: kind,
            scale: Vector3(channels[0].scale, channels[1].scale, channels[2].scale),
            offset: Vector3(channels[0].offset, channels[1].offset, channels[2].offset),
            mountMatrix: mountMatrix)
    }

    /// The pressure conversion (barometer only).
    public var pressureConversion: IIOScalarConversion? {
        guard kind == .barometer, let c = channels.first else { return nil }
        return IIOScalarConversion(scale: c.scale, offset: c.offset, unit: IIOUnits.toApple(.barometer))
    }

    /// The temperature conversion to °C, when the barometer has a temperature channel.
    public var temperatureConversion: IIOScalarConversion? {
        temperature.map { IIOScalarConversion(scale: $0.scale, offset: $0.offset, unit: IIOUnits.celsiusPerIIOUnit) }
    }

    /// True when every channel can be captured through the buffer (a scan element and a `_raw`
    /// attribute, so that scale and offset have their documented meaning).
    public var isBufferCapable: Bool { channels.allSatisfy { $0.scan != nil && !$0.isProcessed } }

    /// The description the service clamps update intervals with.
    public func description(mode: String? = nil) -> SensorDescription {
        SensorDescription(
            kind: kind,
            name: "\(driverName) (\(deviceDirectory)\(mode.map { ", " + $0 } ?? ""))",
            minimumRate: rate.rates.minimum, maximumRate: rate.rates.maximum,
            availableRates: rate.rates.availableRates)
    }
}

/// The buffered-capture controls of a device.
public struct IIOBufferInfo: Sendable, Hashable {
    /// `buffer/enable` (or `buffer0/enable`).
    public let enablePath: String
    /// `buffer/length`, if present.
    public let lengthPath: String?
    /// `buffer/watermark`, if present.
    public let watermarkPath: String?
    /// `/dev/iio:deviceN` (or `ROOT/dev/iio:deviceN` in a fake tree).
    public let nodePath: String
    /// The `in_timestamp` scan element, if the device has one.
    public let timestamp: IIOScanElementInfo?
    /// Every scan element of the device, so that channels this layer does not use can be disabled.
    public let allElements: [IIOScanElementInfo]
    /// `trigger/current_trigger`, when the device takes a trigger.
    public let currentTriggerPath: String?
    /// The trigger to select when none is set: the device's own data-ready trigger
    /// (`<name>-dev<N>`, `<name>-trigger`), if found.
    public let preferredTrigger: String?
}

/// One `iio:deviceN` and the motion sensors on it.
public struct IIODeviceInfo: Sendable, Hashable {
    /// `iio:deviceN`.
    public let directoryName: String
    /// Full path of the device directory.
    public let path: String
    /// The driver's `name`.
    public let name: String
    /// The device's `label`, if any.
    public let label: String?
    /// `MAJOR:MINOR` from the `dev` attribute, if present.
    public let deviceNumber: String?
    /// The motion sensors on the device.
    public let sensors: [IIOSensorInfo]
    /// Buffered-capture controls; `nil` when the device cannot be captured through a buffer.
    public let buffer: IIOBufferInfo?
    /// `current_timestamp_clock`, if present.
    public let timestampClockPath: String?

    /// The number N of `iio:deviceN`.
    public var index: Int { Int(directoryName.dropFirst("iio:device".count)) ?? Int.max }
}
