// MotionHistory: the history store (layer 5). Steps, floors, pedometer pause/resume events, activity
// segments and recorded accelerometer samples are kept in one SQLite file across process launches, as a
// motion coprocessor keeps them: 7 days of pedometer and activity history, 3 days of accelerometer
// recordings. Start with `HistoryStore`; `docs/history.md` describes the schema, location and policies.
@_exported import MotionSamples
