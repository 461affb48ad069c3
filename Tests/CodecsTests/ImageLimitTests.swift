import BinaryIO
import ImageFormats
import Testing

@testable import Codecs

@Suite("Limits: image dimensions")
struct ImageLimitTests {
    @Test func maxImageDimension() {
        var l = Limits(); l.maxImageDimension = 1000
        do {
            _ = try Image.blank(width: 50_000, height: 10, format: .gray, limits: l); Issue.record("should throw")
        } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.message.contains("maxImageDimension"))
        }
        #expect((try? Image.blank(width: 1000, height: 1, format: .gray, limits: l)) != nil)
    }
}
