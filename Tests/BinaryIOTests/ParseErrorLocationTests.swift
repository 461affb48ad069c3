import BinaryIO
import Testing

/// An error says where in the input it was found only when it was found in the input: a refused option, a missing
/// program or a cancelled job has no offset, and its description does not pretend one ("at offset 0").
@Suite struct ParseErrorLocationTests {
    @Test func errorWithoutPlaceHasNoOffset() {
        let e = ParseError(.invalidArgument, "option \"layout\" must be sbs or tb")
        #expect(e.offset == nil)
        #expect(e.description == "invalid-argument: option \"layout\" must be sbs or tb")
        #expect(!e.withPath("convert").description.contains("offset"))
    }

    @Test func errorAtAPlaceKeepsItsOffsetEvenZero() throws {
        #expect(
            ParseError(.truncated, offset: 0, path: "(top level)", "empty file").description
                == "truncated at offset 0 in (top level): empty file")
        var r = ByteReader([1, 2, 3], baseOffset: 100)
        _ = try r.readU8()
        do {
            _ = try r.readU32()
            Issue.record("expected a truncation")
        } catch {
            #expect(error.offset == 101)
        }
    }

    @Test func oneSeverityOrdersFindings() {
        #expect(Severity.allCases == [.info, .warning, .error])
        #expect(Severity.info < .warning && Severity.warning < .error)
        #expect(Severity(rawValue: "error") == .error)
    }
}
