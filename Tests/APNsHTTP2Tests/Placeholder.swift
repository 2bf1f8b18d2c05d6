// Placeholder until the transport tests land.
