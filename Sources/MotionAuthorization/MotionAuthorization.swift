// MotionAuthorization: who a peer of coremotiond is and what it may do.
