/// The text of `pushgw --help`.
enum Usage {
    static let text = """
    usage: pushgw render EVENT.json [--config FILE] [--now EPOCH_SECONDS] [--compact]

      render   Validate one event and print, as JSON, the provider requests that
               /v1/notify would send for it (the /v1/render answer): FCM v1 and
               direct APNs requests per device, the skipped recipients, the
               Communication Notification persona and the avatar state.
               EVENT.json may be - for standard input.

      --config FILE   the gateway's JSON configuration (apps, data key names,
                      default locale, self senders); default: one demo app
      --now SECONDS   the clock for apns-expiration (default: the current time)
      --compact       one line instead of indented JSON

    Exit status: 0 rendered; 1 the event was refused (the JSON error is printed
    on standard output); 2 bad usage or configuration.
    """
}
