import ArenaCLI
import NIOContender

ArenaMain.run(engines: [NIOEngine()])
