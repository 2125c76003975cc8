import MotionLiveViewProtocol

/// What a page shows: a live device or a recording's timeline. The tool implements it for every
/// device kind (through Core Motion's API) and for a recording (``RecordingTimeline``); the server
/// knows nothing else about where samples come from.
public protocol LiveViewSource: AnyObject, Sendable {
    /// What a new page is told first (the reference frame as it is now).
    var hello: LiveViewHello { get }
    /// Starts sending samples and events to `broadcaster`.
    func start(into broadcaster: LiveBroadcaster) throws
    /// Called about 30 times a second before each batch is sent: a timeline moves its play head here.
    /// Returns the clock sent with the batch.
    func tick(into broadcaster: LiveBroadcaster) -> LiveClock
    /// Carries out a page's command; throws a message for the page when it cannot.
    func handle(_ command: PageCommand, broadcaster: LiveBroadcaster) throws(LiveViewSourceError)
    /// A page opened: a source that can resend what came before (a timeline) does so, so that a page
    /// opened on a paused recording is not empty.
    func pageOpened()
    /// Stops sending.
    func stop()
}

extension LiveViewSource {
    /// Does nothing: a live device cannot resend the past.
    public func pageOpened() {}
}

/// Why a source refused a command (the page shows the message).
public struct LiveViewSourceError: Error, Sendable, CustomStringConvertible {
    /// The message for the page.
    public let description: String
    /// A refusal with its message.
    public init(_ description: String) { self.description = description }
}
