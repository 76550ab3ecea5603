import Foundation

@testable import Frontmail

/// The library's resource bundle (where PrivacyInfo.xcprivacy is copied).
func frontmailResourceBundle() -> Bundle { Bundle.module }
