// MotionProtocol: the frames `coremotiond` and its clients exchange over a Unix stream socket.
//
// Pure: bytes in, messages out, and back. No I/O, no threads, so that the decoder is fuzzed on its own
// (Fuzz/) and both ends share one definition. The layout is documented frame by frame in docs/protocol.md.
@_exported import MotionClient
@_exported import MotionSamples
