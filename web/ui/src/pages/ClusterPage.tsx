export default function ClusterPage(_: Record<string, unknown>) { return <div className="page">ClusterPage</div>; }
