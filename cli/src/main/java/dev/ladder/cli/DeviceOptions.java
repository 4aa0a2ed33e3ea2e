package dev.ladder.cli;

import dev.ladder.inference.device.Placement;
import dev.ladder.inference.device.DeviceChoice;
import dev.ladder.inference.device.TorchSetupException;
import dev.ladder.sql.db.UserError;

/** {@code --device} of the commands that load a model: parsed before any work, resolved on the started engine. */
final class DeviceOptions {

    private DeviceOptions() {}

    static DeviceChoice parse(String value) {
        try {
            return DeviceChoice.parse(value, "--device");
        } catch (TorchSetupException e) {
            throw new UserError(e.getMessage(), e);
        }
    }

    /** The device; a choice the loaded libtorch cannot serve (cuda on a CPU build) is a user error. */
    static Placement resolve(DeviceChoice choice) {
        try {
            return choice.place();
        } catch (TorchSetupException e) {
            throw new UserError(e.getMessage(), e);
        }
    }
}
