// Placeholder until the service tests land.
