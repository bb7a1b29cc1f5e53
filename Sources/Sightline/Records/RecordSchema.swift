/// The record types Sightline writes, one JSON object per line (see Schemas/).

/// Version of the record format; bumped when a field changes meaning or disappears.
public let recordSchemaVersion = 2
/// Schema 2 put `t` on the file's presentation timeline (pts × time base − the container's start
/// time) and made `index` the frame's position in the stream also when a run starts later; in
/// schema 1 both counted from the first frame read.
public let firstSchemaOnFileTimeline = 2
