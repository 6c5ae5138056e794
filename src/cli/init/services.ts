/**
 * The database service a project runs for its tests today, from docker-compose and CI files: the
 * image says the engine and its major, the image's env vars the credentials. Line patterns, not a
 * YAML parser: the keys these images read are few and always spelled the same.
 */
import { allSigns, engineBySign, PROJECT_SIGNS } from '../../engines/project-signs.js';
import type { EngineName } from '../../types.js';
import type { Found, ProjectFiles } from './files.js';

export interface Service {
  engine: Found<EngineName>;
  /** The image's tag, when it names a major (postgres:16, mariadb:10.11). */
  major?: string;
  user?: Found<string>;
  password?: Found<string>;
  database?: Found<string>;
}

const SERVICE_FILES = /(^|\/)(docker-compose[\w.-]*|compose[\w.-]*|\.gitlab-ci|\.circleci\/config|\.github\/workflows\/[\w.-]+)\.ya?ml$/;
const IMAGE = new RegExp(
  `^\\s*(?:-\\s*)?image\\s*:\\s*['"]?(?:[\\w.-]+/)*(${allSigns('images').join('|')})(?::([\\w.-]+))?['"]?\\s*$`,
  'm',
);

export function findServices(files: ProjectFiles): Service | undefined {
  for (const f of files.all().filter((f) => SERVICE_FILES.test(f))) {
    const text = files.read(f) ?? '';
    const image = IMAGE.exec(text);
    const engine = image ? engineBySign('images', image[1]!) : undefined;
    if (!image || !engine) continue;
    const signs = PROJECT_SIGNS[engine];
    const service: Service = { engine: { value: engine, from: files.where(f, image.index) } };
    const major = /^(\d+(?:\.\d+)?)/.exec(image[2] ?? '')?.[1];
    if (major) service.major = major;
    const env = (keys: string[]): Found<string> | undefined => {
      for (const k of keys) {
        const m = new RegExp(`^\\s*(?:-\\s*)?['"]?${k}['"]?\\s*[:=]\\s*['"]?([^'"\\s#]*)`, 'm').exec(text);
        if (m) return { value: m[1]!, from: files.where(f, m.index) };
      }
      return undefined;
    };
    service.user = env(signs.imageEnv.user);
    service.password = env(signs.imageEnv.password);
    service.database = env(signs.imageEnv.database);
    // An image's root password is root's.
    if (signs.rootUser && !service.user && service.password) service.user = { value: signs.rootUser, from: service.password.from };
    return service;
  }
  return undefined;
}
