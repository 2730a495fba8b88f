"""The hostile suite: misbehaving files, scripts and interrupts, each run as a user would."""
