import BinaryIO
import Testing

@testable import HEVC

@Suite struct SEITests {
    @Test func appleThreeDimensionalReferenceDisplays() throws {
        let payload: [UInt8] = [0x04, 0x0d, 0x00, 0x20]
        let info = try ThreeDimensionalReferenceDisplaysInfo(payload: payload)
        #expect(info.precRefDisplayWidth == 31)
        #expect(info.displays.count == 1)
        #expect(info.displays[0].leftViewId == 0 && info.displays[0].rightViewId == 1)
        #expect(info.displays[0].mantissaBits == 1)
        #expect(!info.usesLongMantissa)
        #expect(try info.payload() == payload)
    }

    @Test(.needs(.sharedMedia)) func fixturesSEI176AndUserData() throws {
        var found176 = 0, found5 = 0
        for (file, nals) in try allSharedNALUnits() {
            for nal in nals where nal.type == .prefixSEI || nal.type == .suffixSEI {
                let list = try SEIMessageList(nal: nal)
                #expect(list.nalUnit().bytes == nal.bytes)
                for m in list.messages {
                    if let d = m.threeDimensionalReferenceDisplays {
                        found176 += 1
                        #expect(d.displays.first?.leftViewId == 0 && d.displays.first?.rightViewId == 1, "\(file)")
                        #expect(try d.payload() == m.payload, "\(file): typed re-encode of SEI 176")
                        if file.contains("x265") || file.contains("mvhevc_") {
                            print("\(file) SEI 176 long mantissa: \(d.usesLongMantissa)")
                        }
                    }
                    if let u = m.userDataUnregistered {
                        found5 += 1
                        #expect(u.payload == m.payload)
                    }
                }
            }
        }
        #expect(found176 > 0)
        print("SEI 176 messages: \(found176), user data unregistered: \(found5)")
    }

    @Test func messageListSerialisesLongTypesAndSizes() throws {
        let big = SEIMessage(payloadType: 300, payload: Array(repeating: 7, count: 600))
        let list = SEIMessageList(messages: [big, SEIMessage(payloadType: 5, payload: Array(0..<20))])
        let nal = list.nalUnit()
        let back = try SEIMessageList(nal: nal)
        #expect(back.messages == list.messages)
        #expect(back.nalUnit().bytes == nal.bytes)
    }

    @Test func truncatedPayloadIsAnError() {
        // type 5, size 40 but only 3 bytes follow.
        let nal = NALUnit(header: NALHeader(type: .prefixSEI), rbsp: [5, 40, 1, 2, 0x80])
        #expect(throws: ParseError(.truncated, offset: 0, "")) { try SEIMessageList(nal: nal) }
    }
}
