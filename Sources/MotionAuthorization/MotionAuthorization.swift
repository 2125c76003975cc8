// MotionAuthorization: who a peer of coremotiond is and what it may do.
//
// Folders:
// - `Identity/`   the peer's kernel credentials and the app it runs (Flatpak, Snap, systemd app scope, executable)
// - `Decisions/`  the four states of Apple's `CMAuthorizationStatus`, the per-user, per-app decisions on disk
//                 (with per-user and store-wide quotas), and the document that answers `coremotion permissions`
// - `Policy/`     the administrator's policy file, the user database (getpwnam_r, getgrouplist), the authority
//                 that combines policy and decisions into one state and into what that state allows
// - `Support/`    bounded reads of hostile files, a lock-guarded value, small string checks, log-safe quoting
//
// Entry points: `AppIdentity.identify(pid:)`, `PermissionStore`, `AdminPolicy.load(from:)`,
// `AuthorizationAuthority.status(for:app:)`, `AuthorizationAuthority.allowsHistory(status:peer:)`. User-facing notes: docs/authorization.md.
