// Placeholder until the simulator tool lands.
