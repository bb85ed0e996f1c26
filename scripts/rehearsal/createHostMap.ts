/**
 * The one translation the rehearsal makes: a cluster's host names and ports to this machine's. Every
 * name a Service (or an engine standing in for the cluster's) answers to, with its namespace forms, maps
 * to 127.0.0.1 and a local port per cluster port. Each translation made is recorded for the table.
 */
export type Translation = { where: string; variable: string; from: string; to: string };

const defaultPorts: Record<string, number> = {
  http: 80,
  https: 443,
  nats: 4222,
  redis: 6379,
  rediss: 6379,
  postgres: 5432,
  postgresql: 5432,
};

export type HostMap = {
  add(name: string, namespace: string | undefined, ports: Map<number, number>): void;
  /** A value with every cluster address in it made local; undefined when it names none. */
  translate(value: string): string | undefined;
  /** The local port of `host:port`, or undefined. */
  portOf(host: string, port: number): number | undefined;
  isHost(value: string): boolean;
};

export function createHostMap(): HostMap {
  const hosts = new Map<string, Map<number, number>>();
  const names = () => [...hosts.keys()].sort((a, b) => b.length - a.length).map((n) => n.replaceAll('.', '\\.'));
  return {
    add(name, namespace, ports) {
      const forms = [name];
      if (namespace)
        forms.push(`${name}.${namespace}`, `${name}.${namespace}.svc`, `${name}.${namespace}.svc.cluster.local`);
      for (const form of forms) hosts.set(form, ports);
    },
    isHost: (value) => hosts.has(value),
    portOf: (host, port) => hosts.get(host)?.get(port),
    translate(value) {
      if (hosts.size === 0) return undefined;
      const pattern = new RegExp(`(^|[/@,=\\s])(${names().join('|')})(?::(\\d+))?(?=$|[/,?\\s"'])`, 'g');
      let changed = false;
      const result = value.replace(
        pattern,
        (whole, before: string, host: string, port: string | undefined, offset: number) => {
          const ports = hosts.get(host);
          if (!ports) return whole;
          const scheme = /([a-z][a-z0-9+.-]*):\/\/(?:[^/@\s]*@)?$/i.exec(value.slice(0, offset + before.length))?.[1];
          const clusterPort = port ? Number(port) : scheme ? defaultPorts[scheme.toLowerCase()] : undefined;
          if (clusterPort === undefined) {
            changed = true;
            return `${before}127.0.0.1`;
          }
          const local = ports.get(clusterPort);
          if (local === undefined) throw new Error(`${host}:${clusterPort} is named, but nothing answers on that port`);
          changed = true;
          return `${before}127.0.0.1:${local}`;
        },
      );
      return changed ? result : undefined;
    },
  };
}
