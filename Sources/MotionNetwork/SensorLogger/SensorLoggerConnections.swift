import Foundation
import NIOCore
// The request and response parts of Hummingbird's HTTP/1 channel (swift-nio-extras, built for Hummingbird).
import NIOHTTPTypes
import Synchronization

/// One HTTP request part as Hummingbird's HTTP/1 channel hands it on.
typealias SensorLoggerRequestPart = HTTPRequestPart
/// One HTTP response part.
typealias SensorLoggerResponsePart = HTTPResponsePart

/// Why the server closed a connection itself (``SensorLoggerServer/Statistics/closedConnections``).
public enum SensorLoggerConnectionClosure: String, Sendable, Hashable, CaseIterable {
    /// Closed at once because ``SensorLoggerLimits/maximumConnections`` were open.
    case overLimit
    /// Idle: no complete request head within ``SensorLoggerLimits/idleTimeout``.
    case idle
    /// A request's body took longer than ``SensorLoggerLimits/requestTimeout`` after its head.
    case slowRequest
}

/// A receiver's count of open connections, shared by every connection's ``SensorLoggerConnectionGuard``.
///
/// Beyond ``SensorLoggerLimits/maximumConnections`` a new connection is refused (closed at once), counted,
/// and reported through `report` at most once per ``SensorLoggerLimits/refusalLogInterval``. `report` is
/// called without the lock held.
final class SensorLoggerConnectionGate: Sendable {
    struct Counts: Sendable, Hashable {
        var open = 0
        var closed: [SensorLoggerConnectionClosure: Int] = [:]
        var refusedSinceReport = 0
        var lastReport: ContinuousClock.Instant?
    }

    let limits: SensorLoggerLimits
    private let counts = Mutex(Counts())
    private let report: @Sendable (String) -> Void

    init(limits: SensorLoggerLimits, report: @escaping @Sendable (String) -> Void) {
        self.limits = limits
        self.report = report
    }

    /// What happened so far.
    var current: Counts { counts.withLock { $0 } }

    /// Takes a place for a new connection; `false`: over the cap, close it.
    func admit() -> Bool {
        let now = ContinuousClock.now
        let interval = Duration.milliseconds(Int64(limits.refusalLogInterval * 1000))
        let (admitted, line): (Bool, String?) = counts.withLock { c in
            if c.open < limits.maximumConnections {
                c.open += 1
                return (true, nil)
            }
            c.closed[.overLimit, default: 0] += 1
            c.refusedSinceReport += 1
            guard c.lastReport.map({ now - $0 >= interval }) ?? true else { return (false, nil) }
            let line = "refused \(c.refusedSinceReport) connection(s) over the limit of \(limits.maximumConnections) open at once (\(c.closed[.overLimit, default: 0]) in all); further ones are counted and reported at most once every \(Int(limits.refusalLogInterval)) s"
            c.refusedSinceReport = 0
            c.lastReport = now
            return (false, line)
        }
        if let line { report(line) }
        return admitted
    }

    /// Gives back the place of a connection that closed.
    func release() { counts.withLock { $0.open -= 1 } }

    /// Counts a connection closed for idling (`slow == false`) or for a request that took too long.
    func noteTimeout(slow: Bool) {
        counts.withLock { c in
            c.closed[slow ? .slowRequest : .idle, default: 0] += 1
        }
    }
}

/// Sits in each connection's pipeline (after HTTP decoding): takes a place from the gate or closes the
/// connection at once, and closes it when it idles (no request under way for
/// ``SensorLoggerLimits/idleTimeout``, which also bounds how long a request head may take) or when a request's
/// body takes longer than ``SensorLoggerLimits/requestTimeout`` after its head. A reply being written is
/// never cut off.
///
/// Everything here runs on the connection's event loop.
final class SensorLoggerConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = SensorLoggerRequestPart
    typealias InboundOut = SensorLoggerRequestPart
    typealias OutboundIn = SensorLoggerResponsePart
    typealias OutboundOut = SensorLoggerResponsePart

    private let gate: SensorLoggerConnectionGate
    private var started = false
    private var admitted = false
    /// A request head was read and its end not yet.
    private var reading = false
    /// Requests read and not yet answered.
    private var pending = 0
    /// When the connection last became idle, or when the request being read began.
    private var since = NIODeadline.now()
    private var timer: Scheduled<Void>?

    init(gate: SensorLoggerConnectionGate) {
        self.gate = gate
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish()
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            reading = true
            pending += 1
            since = .now()
        case .end:
            reading = false
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            pending = max(pending - 1, 0)
            if pending == 0 && !reading {
                since = .now()
                schedule(context)
            }
        }
        context.write(data, promise: promise)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        guard gate.admit() else {
            context.close(promise: nil)
            return
        }
        admitted = true
        since = .now()
        schedule(context)
    }

    private func finish() {
        timer?.cancel()
        timer = nil
        if admitted {
            admitted = false
            gate.release()
        }
    }

    /// When the connection is closed unless something happens first; `nil` while a reply is being made.
    private var deadline: NIODeadline? {
        if reading { return since + Self.amount(gate.limits.requestTimeout) }
        if pending > 0 { return nil }
        return since + Self.amount(gate.limits.idleTimeout)
    }

    private func schedule(_ context: ChannelHandlerContext) {
        guard admitted, timer == nil, let deadline else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            check(context)
        }
    }

    private func check(_ context: ChannelHandlerContext) {
        guard admitted, let deadline else { return }
        if NIODeadline.now() >= deadline {
            gate.noteTimeout(slow: reading)
            context.close(promise: nil)
        } else {
            schedule(context)
        }
    }

    private static func amount(_ seconds: TimeInterval) -> TimeAmount {
        .nanoseconds(Int64(max(seconds, 0) * 1e9))
    }
}

@available(*, unavailable)
extension SensorLoggerConnectionGuard: Sendable {}
