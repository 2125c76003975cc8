// Apple's Core Motion headers import Foundation (`#import <Foundation/Foundation.h>` at the top of every
// header, e.g. CMLogItem.h, CMMagnetometer.h), and its Swift overlay is built on it, so an app that writes only
// `import CoreMotion` can use `Date`, `OperationQueue`, `Timer`, `RunLoop`, `NSNumber` and
// `Measurement` — the types in Core Motion's own signatures. The module re-exports Foundation the same way.
@_exported import Foundation
