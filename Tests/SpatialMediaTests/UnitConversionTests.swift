import BinaryIO
import Testing

@testable import SpatialMedia

@Suite struct UnitConversionTests {
    @Test func conversions() throws {
        #expect(try SpatialUnits.micrometres(fromMillimetres: 19.24) == 19240)
        #expect(try SpatialUnits.micrometres(fromMillimetres: 64.0004) == 64000)
        #expect(try SpatialUnits.micrometres(fromMillimetres: 0.0005) == 1)
        #expect(try SpatialUnits.millidegrees(fromDegrees: 63.4) == 63400)
        #expect(try SpatialUnits.disparityUnits(fromPercent: 2) == 200)
        #expect(try SpatialUnits.disparityUnits(fromPercent: -1.5) == -150)
        #expect(try SpatialUnits.disparityUnits(fromFraction: 0.02) == 200)
        #expect(SpatialFormat.percent(-5) == "-0.05")
        #expect(SpatialFormat.millimetres(19240) == "19.240")
    }

    @Test func rejections() {
        for d in [0.0, 180, -5, .nan, .infinity, 179.9999] {
            #expect(throws: ParseError(.invalidArgument, offset: 0, "")) {
                try SpatialUnits.millidegrees(fromDegrees: d)
            }
        }
        #expect(throws: ParseError(.invalidArgument, offset: 0, "")) {
            try SpatialUnits.disparityUnits(fromPercent: 150)
        }
        #expect(throws: ParseError(.invalidArgument, offset: 0, "")) {
            try SpatialUnits.disparityUnits(fromPercent: .nan)
        }
        #expect(throws: ParseError(.invalidArgument, offset: 0, "")) {
            try SpatialUnits.micrometres(fromMillimetres: -1)
        }
        #expect(throws: ParseError(.invalidArgument, offset: 0, "")) {
            try SpatialUnits.micrometres(fromMillimetres: 1e12)
        }
    }

    @Test func editValidation() throws {
        var e = SpatialVideoEdit()
        e.baselineMicrometres = .set(2_000_000)
        #expect(try e.validate().contains { $0.contains("more than 1 m") })
        e.horizontalFieldOfViewMillidegrees = .set(180_000)
        #expect(throws: ParseError(.invalidValue, offset: 0, "")) { try e.validate() }
    }
}
