// Placeholder until the FCM client lands.
