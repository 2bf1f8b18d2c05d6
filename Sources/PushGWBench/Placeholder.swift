// Placeholder so SwiftPM accepts this target on the clibs branch; discard on merge.
