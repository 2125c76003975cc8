// MotionSystemd: systemd socket activation and sd_notify without libsystemd; the unit files.
