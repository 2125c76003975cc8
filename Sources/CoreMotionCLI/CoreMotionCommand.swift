import ArgumentParser
import MotionSamples

/// The `coremotion` tool: play, inspect and evaluate motion data with this library.
@main
struct CoreMotionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coremotion",
        abstract: "Core Motion on Linux: play, inspect, fuse and evaluate motion recordings.",
        discussion: """
            Devices are chosen with COREMOTION_DEVICE (none, auto, replay:PATH[?speed=N&loop=true], sim:SCENE, iio[:ROOT], service[:PATH], sensorlogger:HOST:PORT, phyphox:http://HOST:PORT, sensorserver:ws://HOST:PORT).
            Every command that prints results also takes --json.
            """,
        version: CoreMotionVersion.string,
        subcommands: CoreMotionCommand.allSubcommands
    )

    /// Every subcommand, in the order `--help` lists them. Add new commands here.
    static let allSubcommands: [any ParsableCommand.Type] = [
        DemoCommand.self,
        InfoCommand.self,
        ReplayCommand.self,
        RecordCommand.self,
        SimulateCommand.self,
        StepsCommand.self,
        AltitudeCommand.self,
        ActivityCommand.self, TrainActivityCommand.self,
        DevicesCommand.self,
        ServiceCommand.self, PermissionsCommand.self, HistoryCommand.self,
        IIOEmulateCommand.self, PhoneEmulateCommand.self,
        FuseCommand.self,
        EvaluateCommand.self,
        ViewCommand.self,
    ]
}
