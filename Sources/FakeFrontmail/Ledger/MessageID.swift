/// The fake API's message ids: `msg_<n>`, where n is the message's number in the emulator and in
/// the ledger (`AttemptLedger.Record.message`; 0 means none).
public enum MessageID {
    public static let prefix = "msg_"

    /// `msg_<n>` for message number n.
    public static func string(_ number: UInt32) -> String { prefix + String(number) }

    /// n for `msg_<n>`; nil for anything else.
    public static func number(_ id: String) -> UInt32? {
        id.hasPrefix(prefix) ? UInt32(id.dropFirst(prefix.count)) : nil
    }
}
