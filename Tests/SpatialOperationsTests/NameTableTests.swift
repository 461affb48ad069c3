import Testing
import SpatialOperations

/// The name table of convert: one row per key, no key or flag twice.
@Suite struct NameTableTests {
    @Test func keysAndFlagsAreUnique() {
        let t = ConvertRequest.table
        #expect(Set(t.map(\.key)).count == t.count)
        let flags = t.compactMap(\.flag)
        #expect(Set(flags).count == flags.count)
        #expect(Set(t.map(\.pythonKeyword)).count == t.count)
    }
}
