import SystemSupport
import Testing

/// One frame-rate parser for `convert --fps`, `assemble --fps` and the APIs.
@Suite struct FrameRateTests {
    @Test func ratesPeopleWriteBecomeTheFractionsPlayersUse() {
        #expect(FrameRate.parse("30")! == (30, 1))
        #expect(FrameRate.parse("29.97")! == (30000, 1001))
        #expect(FrameRate.parse("23.976")! == (24000, 1001))
        #expect(FrameRate.parse("59.94")! == (60000, 1001))
        #expect(FrameRate.parse("30000/1001")! == (30000, 1001))
        #expect(FrameRate.parse("12.5")! == (12500, 1000))
        #expect(FrameRate.fraction(29.97)! == (30000, 1001))
        for bad in ["0", "-1", "abc", "1/0", "2000", "30/1/1", ""] { #expect(FrameRate.parse(bad) == nil, "\(bad)") }
    }
}
