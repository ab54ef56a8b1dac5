import Foundation
import PrivateFiles
import TestSupport
import Testing

struct PrivateFilesTests {
    let scratch = Scratch()
    var directory: String { scratch.path("private") }

    func mode(_ path: String) throws -> Int {
        try #require((FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue)
    }

    @Test func directoriesAreMadeForTheOwnerAlone() throws {
        try PrivateFiles.makeDirectory(directory + "/a/b", own: true)
        #expect(try mode(directory) == 0o700)
        #expect(try mode(directory + "/a/b") == 0o700)
        // An existing directory that is not the program's own keeps its mode.
        try FileManager.default.createDirectory(atPath: directory + "/shared", withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        try PrivateFiles.makeDirectory(directory + "/shared", own: false)
        #expect(try mode(directory + "/shared") == 0o755)
        try PrivateFiles.makeDirectory(directory + "/shared", own: true)
        #expect(try mode(directory + "/shared") == 0o700)
    }

    @Test func aFileIsCreatedOnceWholeAndPrivate() throws {
        try PrivateFiles.makeDirectory(directory, own: true)
        let path = directory + "/secret.pem"
        #expect(try PrivateFiles.createOnce(path, contents: Array("first".utf8)))
        #expect(try mode(path) == 0o600)
        // A second writer finds it made and writes nothing.
        #expect(try !PrivateFiles.createOnce(path, contents: Array("second".utf8)))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "first")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["secret.pem"])
    }

    @Test func aDatabaseAndItsCompanionFilesAreNarrowed() throws {
        try PrivateFiles.makeDirectory(directory, own: true)
        let path = directory + "/store.sqlite"
        try PrivateFiles.prepareDatabase(path)
        #expect(try mode(path) == 0o600)
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(FileManager.default.createFile(atPath: file, contents: Data(), attributes: [.posixPermissions: 0o644]))
        }
        try PrivateFiles.prepareDatabase(path)
        for file in [path, path + "-wal", path + "-shm"] { #expect(try mode(file) == 0o600, "\(file)") }
    }

    @Test func aFileIsSyncedWhereItIsAndAMissingOneIsNothingToSync() throws {
        try PrivateFiles.makeDirectory(directory, own: true)
        let path = directory + "/store.sqlite-wal"
        #expect(try !PrivateFiles.sync(path))
        #expect(FileManager.default.createFile(atPath: path, contents: Data("frames".utf8)))
        #expect(try PrivateFiles.sync(path))
        // A path through a file is not a missing file: it is an error, named.
        let error = try #require(throws: PrivateFileError.self) { try PrivateFiles.sync(path + "/below") }
        #expect(error.description == "cannot open \(path)/below: Not a directory")
    }

    @Test func failuresNameThePathAndTheReason() throws {
        let error = try #require(throws: PrivateFileError.self) { try PrivateFiles.prepareDatabase(directory + "/missing/store.sqlite") }
        #expect(error.description == "cannot create \(directory)/missing/store.sqlite: No such file or directory")
    }
}
