/// What one capture thread has done so far.
public struct IIOCaptureStatistics: Sendable, Hashable, Codable {
    /// The device directory captured (`iio:deviceN`).
    public var device: String
    /// `buffered` or `polled`.
    public var mode: String
    /// Scans decoded (buffered) or sensor reads completed (polled).
    public var reads: Int = 0
    /// Samples handed to the sink.
    public var samples: Int = 0
    /// Reads that failed and produced no sample.
    public var readErrors: Int = 0
    /// Bytes read from the buffer node.
    public var bytes: Int = 0
    /// Scans per wake-up the buffer was set to (`buffer/watermark`, read back); 0 when polled.
    public var watermark: Int = 0
    /// Times the capture thread woke from a wait (data, a timeout, a poll due).
    public var wakeups: Int = 0
    /// CPU time the capture thread used, seconds (CLOCK_THREAD_CPUTIME_ID, refreshed about once a second).
    public var threadCPUSeconds: Double = 0
    /// Seconds since the capture thread started.
    public var wallSeconds: Double = 0

    /// Empty statistics of the capture of `device` in `mode`.
    public init(device: String, mode: String) {
        self.device = device
        self.mode = mode
    }

    /// CPU time per delivered sample, microseconds.
    public var cpuMicrosecondsPerSample: Double { samples > 0 ? threadCPUSeconds / Double(samples) * 1e6 : 0 }
    /// CPU load of the capture thread, percent of one core.
    public var cpuPercent: Double { wallSeconds > 0 ? threadCPUSeconds / wallSeconds * 100 : 0 }
}
