/** What `doctor` checks of MySQL/MariaDB on this machine and on a server it reached. */
import { errorFix, errorWhat } from '../../errors.js';
import type { DoctorCheck, DoctorInputs, EngineDoctor } from '../engine.js';

async function checkMysqlBinaries(inputs: DoctorInputs): Promise<DoctorCheck> {
  try {
    const { findMysqlBinary } = await import('./embedded.js');
    const b = findMysqlBinary(inputs);
    return {
      id: 'mysql-binaries',
      status: 'ok',
      title: `${b.flavor === 'mariadb' ? 'MariaDB' : 'MySQL'} ${b.version} server binary`,
      detail: b.path,
    };
  } catch (e) {
    return {
      id: 'mysql-binaries',
      status: 'warn',
      title: 'no MySQL/MariaDB server binary',
      detail: errorWhat(e),
      fix:
        errorFix(e) ??
        'install mariadb-server or mysql-server (only the binary is used; the system service can stay disabled), or pass binDir',
    };
  }
}

export const doctor: EngineDoctor = {
  local: async (inputs) => [await checkMysqlBinaries(inputs)],
  // The server says where its data is among the settings describe() read; rights show when a database is created.
  storage: async (_admin, report) => ({ dataDirectory: report.settings.datadir }),
  rightsFix: (user) => `GRANT ALL ON *.* TO '${user}'@'%'   (run as root), or connect as a user who may`,
};
