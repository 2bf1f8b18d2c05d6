// Placeholder until the FCM client tests land.
