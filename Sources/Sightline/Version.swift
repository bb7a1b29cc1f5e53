import SightlineFrames

/// Sightline's version, written into every stream record.
public let sightlineVersion = "0.1.0"
