import BinaryIO
import Foundation
import SpatialMedia
import SpatialOperations
import SpatialValidation
import SystemSupport
import TestSupport
import Testing

/// Issue 41 (build 4): one horizontal field of view per file across `info`, `validate` and `convert`, for every MPO of
/// the corpus and every JPEG whose EXIF states one (a file `convert` refuses as no stereo pair, or cannot read, is left
/// out). The one
/// reading is `StereoPair.fieldOfView`: the EXIF 35 mm equivalent (or focal length and focal-plane resolution), the
/// values stated by the source, else the default, assumed.
@Suite struct OneFieldOfViewCorpusTests {
    static let dirs = ["corpus/mpo", "corpus/sbs"]

    static func files() -> [String] {
        dirs.compactMap { TestPaths.shared($0) }.flatMap { dir in
            ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
                .filter { [".mpo", ".jpg", ".jpeg"].contains(where: $0.lowercased().hasSuffix) }.map { dir + "/" + $0 }
        }
    }

    static func member(_ json: JSON, _ key: String) -> JSON? {
        if case .object(let o) = json { return o.first { $0.0 == key }?.1 }
        return nil
    }

    static func number(_ json: JSON?) -> Double? {
        switch json {
        case .double(let d)?: return d
        case .int(let i)?: return Double(i)
        case .uint(let u)?: return Double(u)
        default: return nil
        }
    }

    @Test(.needs(.shared("corpus/mpo")))
    func infoValidateAndConvertReadOneFieldOfView() throws {
        let dir = try Shells.tempDir("one-hfov")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var compared: [String] = []
        var stated = 0
        for path in Self.files() {
            let name = (path as NSString).lastPathComponent
            let info: MediaInfo
            do { info = try Operations.info(path: path) } catch { continue }
            if info.isDamaged { continue }  // a cut MPO: every command refuses it
            // info gives the pair's facts for an MPO, and for another picture when it states a field of view (EXIF);
            // a side-by-side JPEG without one is judged and converted at the default, and is not converted here
            // (the corpus's are 3648×1368 and 8192×4096: minutes of encoding for a 60° that proves nothing).
            let isMPO = Self.member(info.json, "format").map { $0 == .string("mpo") } ?? false
            guard let pair = Self.member(info.json, "stereo_pair") else {
                #expect(!isMPO, "\(name): info shows no stereo pair facts: \(info.lines)")
                continue
            }
            let infoHFOV = try #require(Self.number(Self.member(pair, "hfov_degrees")))
            guard case .string(let infoSource)? = Self.member(pair, "hfov_source"),
                case .bool(let assumed)? = Self.member(pair, "hfov_assumed")
            else {
                Issue.record("\(name): info's stereo_pair lacks its source"); continue
            }
            let convert: OperationReport
            do {
                convert = try Operations.convert(
                    ConvertRequest(input: path, output: dir + "/\(name).heic"), spelling: .flag)
            } catch { continue }
            guard case .string(let convertSource)? = convert.fields.first(where: { $0.0 == "hfov_source" })?.1,
                let convertHFOV = Self.number(convert.fields.first { $0.0 == "hfov_degrees" }?.1)
            else {
                Issue.record("\(name): convert reports no field of view"); continue
            }
            let v = Validator.validate(path: path, options: ValidationOptions())
            // validate keeps no field of view in its facts when it assumes one (its rules use the default).
            let validateHFOV = v.facts.stereo.horizontalFieldOfViewDegrees ?? GeometryThresholds.assumedHFOV
            let judged = v.findings.first { $0.ruleID == "SV-PAIR-007" }?.message ?? ""
            // convert writes the field of view rounded to 1/1000°.
            #expect(
                abs(infoHFOV - convertHFOV) < 0.0005 && abs(validateHFOV - convertHFOV) < 0.0005,
                """
                \(name): info \(infoHFOV)° (\(infoSource)), validate \(validateHFOV)° (\(judged)), \
                convert \(convertHFOV)° (\(convertSource))
                """
            )
            if assumed {
                #expect(
                    v.facts.stereo.horizontalFieldOfViewDegrees == nil && convertSource.hasPrefix("default"),
                    "\(name): \(judged); \(convertSource)")
            } else {
                stated += 1
                #expect(
                    convertSource == infoSource && judged.contains("(\(infoSource))"),
                    "\(name): info \(infoSource); validate \(judged); convert \(convertSource)")
            }
            compared.append("\(name) \(NumberText.fixed(infoHFOV, places: 2))° (\(infoSource))")
        }
        #expect(!compared.isEmpty && stated >= 1, "\(compared)")
        print("one field of view: \(compared.joined(separator: "; "))")
    }
}
