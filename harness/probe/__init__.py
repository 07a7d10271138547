"""Capability probing: what a backend actually does, in the shape of the
spec's ``MLContext.opSupportLimits()``. The probe itself is ``driver.probe``."""
