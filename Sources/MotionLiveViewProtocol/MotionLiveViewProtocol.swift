/// The messages between `coremotion view`'s server and its web page, without any I/O.
///
/// The page sends small JSON commands (``PageCommand``, decoded by ``PageCommand/decode(_:)``: hostile
/// bytes give a ``PageCommandError``, never a crash); the server sends JSON text messages built by
/// ``ServerMessageWriter``. This module has no dependency, so that the decoder can be fuzzed alone
/// (`Fuzz/Sources/PageCommandFuzzer`).
public enum LiveViewProtocol {
    /// The version the page and the server agree on; the hello message carries it.
    public static let version = 1
    /// The largest command the server reads from a page, bytes. A longer WebSocket message closes that
    /// page's connection (no command is nearly this long).
    public static let maximumCommandSize = 1024
}
