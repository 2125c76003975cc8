import Foundation

/// Maps the activity labels of the data sets to Core Motion's classes, so that
/// ``ReferenceData/activity`` speaks one vocabulary: `stationary`, `walking`, `running`,
/// `cycling`, `automotive`, `unknown` (the properties of `CMMotionActivity`).
///
/// Readers keep the data set's own label in ``RecordingMetadata/properties`` (`label`).
public enum ActivityVocabulary {
    /// Core Motion's class names.
    public static let classes = ["stationary", "walking", "running", "cycling", "automotive", "unknown"]

    /// The Core Motion class of a data set's label, or `nil` when it names none.
    public static func coreMotionClass(_ label: String) -> String? {
        switch label.lowercased().trimmingCharacters(in: .whitespaces) {
        case "still", "stationary", "sit", "sitting", "std", "standing", "stand", "sit_", "lying": "stationary"
        case "walk", "walking", "wlk", "upstairs", "ups", "downstairs", "dws", "on foot", "onfoot": "walking"
        case "run", "running", "jog", "jogging": "running"
        case "cycling", "cycle", "bike", "bicycle", "biking": "cycling"
        case "driving", "vehicle", "automotive", "car", "bus", "train", "in vehicle": "automotive"
        case "unknown": "unknown"
        default: nil
        }
    }
}
