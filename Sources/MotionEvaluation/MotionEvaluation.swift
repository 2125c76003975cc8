// MotionEvaluation: how well the engines do on recorded data sets, and the training of the activity model.
// Used by the `coremotion` tool and the tests; never linked by an app (`CoreMotion` and `MotionEngine` do not
// depend on it).
//
// Folders:
// - `Fusion/`   device motion against BROAD's optical truth and Apple's own (parity), leave-one-trial-out
//               cross-validation of the fusion settings, `--set` overrides, the run of the engine over a recording
// - `Steps/`    the pedometer against ground truth and Apple's pedometer, leave-one-subject-out cross-validation
// - `Activity/` the training table and its extraction, augmentation, the random-forest trainer, cross-subject
//               splits and confusion matrices, a recording's activity timeline
// - `Support/`  the console progress and notices go to, the error a bad request throws
//
// Results are values (Codable reports); printing them is the tool's. Design notes: docs/fusion.md (Tuning),
// docs/pedometer.md, docs/activity.md.
