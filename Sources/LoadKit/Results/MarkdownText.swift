/// Text a report puts in Markdown as it is, never as markup: the run's own text (names, errors)
/// and any a hostile CSV carries (`compare --summary-md` had written its keys raw).
package enum MarkdownText {
    /// Text as literal Markdown, safe in a table cell or a list item: newlines become spaces and
    /// every character Markdown (or the HTML it allows) could read as markup is escaped.
    package static func cell(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "\n", "\r", "\r\n": out.append(" ")
            case "\\", "`", "*", "_", "[", "]", "<", ">", "#", "|", "~", "!", "&": out += "\\" + String(character)
            default: out.append(character)
            }
        }
        return out
    }

    /// A code span (outside a table) that holds any text: fenced with one backtick more than the
    /// longest run of backticks in it, padded when it starts or ends with one.
    package static func code(_ text: String) -> String {
        let flat = text.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : String($0) }.joined()
        var longest = 0
        var run = 0
        for character in flat {
            run = character == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        let pad = flat.hasPrefix("`") || flat.hasSuffix("`") || flat.isEmpty ? " " : ""
        return fence + pad + flat + pad + fence
    }

    /// A metric key or unit as it reads (`send.success_rate`) when nothing in it is markup (an
    /// underscore between letters is not), else escaped as `cell` escapes it.
    package static func key(_ text: String) -> String {
        let characters = Array(text)
        let plain = characters.indices.allSatisfy { index in
            let character = characters[index]
            if character.isLetter || character.isNumber || ".-/:%+= ".contains(character) { return true }
            guard character == "_", index > 0, index + 1 < characters.count else { return false }
            let before = characters[index - 1]
            let after = characters[index + 1]
            return (before.isLetter || before.isNumber) && (after.isLetter || after.isNumber)
        }
        return plain ? text : cell(text)
    }
}
